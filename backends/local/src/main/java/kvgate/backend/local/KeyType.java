package kvgate.backend.local;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;
import org.h2.mvstore.type.StringDataType;

/**
 * Keys as the bytes clients sent, compared as unsigned bytes. In memory a key is one array: no String beside it,
 * and a lookup uses the request's own array. In the store file a key is written as MVStore writes the ISO-8859-1
 * string of the same bytes (one character a byte), the form the store used before, so older files open unchanged
 * and scans keep their order (unsigned byte order is that string order).
 */
final class KeyType extends BasicDataType<byte[]> {
    static final KeyType INSTANCE = new KeyType();

    /** Heap cost of a key besides its bytes: the array header and the page slot. */
    private static final int OVERHEAD = 24;

    private KeyType() {
    }

    @Override
    public int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    @Override
    public int getMemory(byte[] key) {
        return OVERHEAD + key.length;
    }

    @Override
    public void write(WriteBuffer buffer, byte[] key) {
        StringDataType.INSTANCE.write(buffer, new String(key, StandardCharsets.ISO_8859_1));
    }

    @Override
    public byte[] read(ByteBuffer buffer) {
        return StringDataType.INSTANCE.read(buffer).getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public byte[][] createStorage(int size) {
        return new byte[size][];
    }
}
