package kvgate.backend.memcached;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import kvgate.spi.Namespace;

/**
 * How a namespace and key become one memcached key, collision-free and within memcached's 250 bytes.
 *
 * <ul>
 *   <li>The default namespace keeps its keys as they are, so a pool that memcached clients filled keeps its keys
 *       (and, through {@link Ketama}, their servers).
 *   <li>Another namespace's key is {@code 0x01 <namespace> 0x02 <key>}. Namespace names never contain 0x01 or
 *       0x02, so these never collide with each other.
 *   <li>A default-namespace key that itself starts with 0x01 is written {@code 0x01 0x02 <key>} (an empty
 *       namespace name, which no namespace has), so it cannot collide with a namespaced key.
 *   <li>A key that would be longer than 250 bytes is written {@code 0x01 <namespace> 0x03 <SHA-256 of the full
 *       key, Base64url>}: two long keys share a server key only if their SHA-256 collides.
 * </ul>
 */
public final class ServerKeys {
    public static final int MAX_LENGTH = 250;
    private static final byte MARK = 0x01;
    private static final byte KEY = 0x02;
    private static final byte HASHED = 0x03;

    private ServerKeys() {
    }

    public static byte[] of(Namespace namespace, byte[] key) {
        boolean plain = namespace.equals(Namespace.DEFAULT);
        if (plain && key.length <= MAX_LENGTH && (key.length == 0 || key[0] != MARK)) {
            return key;
        }
        byte[] name = plain ? new byte[0] : namespace.name().getBytes(StandardCharsets.US_ASCII);
        int length = 1 + name.length + 1 + key.length;
        if (length <= MAX_LENGTH) {
            byte[] encoded = new byte[length];
            encoded[0] = MARK;
            System.arraycopy(name, 0, encoded, 1, name.length);
            encoded[1 + name.length] = KEY;
            System.arraycopy(key, 0, encoded, 2 + name.length, key.length);
            return encoded;
        }
        byte[] digest = Base64.getUrlEncoder().withoutPadding().encode(sha256(key));
        byte[] encoded = new byte[1 + name.length + 1 + digest.length];
        encoded[0] = MARK;
        System.arraycopy(name, 0, encoded, 1, name.length);
        encoded[1 + name.length] = HASHED;
        System.arraycopy(digest, 0, encoded, 2 + name.length, digest.length);
        return encoded;
    }

    /**
     * What a server key stands for, as {@link #of} made it: its namespace and key, with the key null for a long key
     * that was hashed (which cannot be told back). A key that {@code of} cannot have made (one written to the server
     * by another client) is a key of the default namespace, as it is.
     */
    record Parsed(Namespace namespace, byte[] key) {
    }

    public static Parsed parse(byte[] serverKey) {
        if (serverKey.length == 0 || serverKey[0] != MARK) {
            return new Parsed(Namespace.DEFAULT, serverKey);
        }
        for (int i = 1; i < serverKey.length; i++) {
            if (serverKey[i] != KEY && serverKey[i] != HASHED) {
                continue;
            }
            String name = new String(serverKey, 1, i - 1, StandardCharsets.US_ASCII);
            Namespace namespace;
            try {
                namespace = name.isEmpty() ? Namespace.DEFAULT : new Namespace(name);
            } catch (IllegalArgumentException notOurs) {
                return new Parsed(Namespace.DEFAULT, serverKey);
            }
            return new Parsed(namespace, serverKey[i] == HASHED ? null
                    : Arrays.copyOfRange(serverKey, i + 1, serverKey.length));
        }
        return new Parsed(Namespace.DEFAULT, serverKey);
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
