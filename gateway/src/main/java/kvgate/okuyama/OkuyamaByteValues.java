package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.encode;
import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaReplies.error;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.Deflater;
import kvgate.net.Translation;
import kvgate.okuyama.OkuyamaFields.BadField;
import kvgate.okuyama.OkuyamaFields.MissingField;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * The byte-value calls of okuyama's client that have request codes of their own: sendMultiByteValue (111), several
 * values stored at once with a verdict per key, and requestReadByteValue (201), a get whose reply is the stored
 * Base64 text compressed, Base64 again and preceded by its length. The other byte-value calls are setValue and
 * getValue (1 and 2) on the client's side.
 */
final class OkuyamaByteValues {
    /** Between a key and its value in a 111 request, and between two keys' verdicts in its reply. */
    private static final String PAIR = ":#:";

    private final Namespace namespace;
    private final int maxValue;

    OkuyamaByteValues(Namespace namespace, int maxValue) {
        this.namespace = namespace;
        this.maxValue = maxValue;
    }

    /**
     * {@code 111,<tx>,<key>:#:<value>,...}: each pair stored as setValue stores it (no tags, no expiry), each on its
     * own; the reply says per key, in the request's order, whether it was stored.
     */
    Translation<String> sendMulti(String[] fields) {
        field(fields, 1); // the transaction code
        List<String> keys = new ArrayList<>();
        List<Operation> stores = new ArrayList<>();
        List<Integer> storeOf = new ArrayList<>();
        for (int i = 2; i < fields.length; i++) {
            int split = fields[i].indexOf(PAIR);
            if (split < 0) {
                throw new MissingField(); // as the reference: a pair without its separator is an argument error
            }
            String key = fields[i].substring(0, split);
            keys.add(key);
            try {
                byte[] value = OkuyamaFields.value(fields[i].substring(split + PAIR.length()), maxValue);
                stores.add(new Operation.Store(namespace, key(key), StoreMode.SET, value, 0, Item.NEVER, 0));
                storeOf.add(stores.size() - 1);
            } catch (BadField e) {
                storeOf.add(-1); // refused as setValue would refuse it: this key is not stored
            }
        }
        if (stores.isEmpty()) {
            return Translation.answer(verdicts(keys, storeOf, List.of()));
        }
        return new Translation.ForwardAll<>(stores, results -> Translation.answer(verdicts(keys, storeOf, results)));
    }

    private static String verdicts(List<String> keys, List<Integer> storeOf, List<Result> results) {
        StringBuilder reply = new StringBuilder("111,true,");
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                reply.append(PAIR);
            }
            int store = storeOf.get(i);
            reply.append(keys.get(i)).append(':').append(store >= 0 && results.get(store).ok());
        }
        return reply.toString();
    }

    /**
     * {@code 201,<key>}: a hit is {@code 201,true,<length, 9 digits>,<payload>}, the payload being the value's Base64
     * text compressed with zlib and Base64-encoded; a miss is the plain get's miss, {@code 2,false,}, which the
     * reference answers too (and its client reads as no match for {@code 201,true,}).
     */
    Translation<String> read(String[] fields) {
        byte[] key = key(field(fields, 1));
        return new Translation.Forward<>(new Operation.Get(namespace, key), result -> Translation.answer(
                result instanceof Result.Value value ? compressed(value.item().value())
                        : result.status() == Status.NOT_FOUND ? "2,false," : error(OkuyamaMethod.READ_BYTE_VALUE,
                        result)));
    }

    private static String compressed(byte[] value) {
        Deflater deflater = new Deflater();
        try {
            deflater.setInput(encode(value).getBytes(StandardCharsets.US_ASCII));
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            while (!deflater.finished()) {
                out.write(buffer, 0, deflater.deflate(buffer));
            }
            String payload = Base64.getEncoder().encodeToString(out.toByteArray());
            return "201,true," + String.format("%09d", payload.length()) + "," + payload;
        } finally {
            deflater.end();
        }
    }
}
