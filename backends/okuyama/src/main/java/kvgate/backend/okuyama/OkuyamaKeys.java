package kvgate.backend.okuyama;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import kvgate.spi.Namespace;

/**
 * How the gateway's keys are okuyama keys. One namespace (okuyama.cluster_namespace) is the
 * cluster's keyspace as its clients see it: its keys go as they are, so items okuyama's clients wrote are the
 * gateway's and the other way round. A key of any other namespace (a memcached collection, the gateway's own
 * records) is stored behind its namespace's name and a zero byte, which no namespace name contains.
 *
 * <p>On the wire, keys travel as padded standard Base64, as okuyama's Java client sends them; a DataNode's listing
 * names them the same way, behind {@code #} and the five characters of an isolation prefix when a MasterNode adds
 * one.
 */
final class OkuyamaKeys {
    private static final Base64.Encoder ENCODER = Base64.getEncoder();
    /** The Base64 of {@code {imdst_lis}}: the DataNodes' records of okuyama's lists. */
    private static final String LIST_RECORDS = "e2ltZHN0X2xpc3";
    /** The start of the keys under which MasterNodes keep their configuration (SystemConfigMode=node). */
    private static final String CONFIGURATION_RECORDS = "TWFzdGVyTm9kZS1NYXN0ZXJDb25maWdTZXR0aW5nRGF0YU5vZGVTYXZl";
    /** Where a DataNode keeps a tag's keys. */
    private static final String TAG_RECORDS = "{imdst_tag#";

    private final Namespace own;
    /** {@code #} and the isolation prefix the MasterNodes add, or empty. */
    private final String isolation;

    /**
     * @param own the namespace whose keys are the cluster's own
     * @param isolationPrefix the five characters of the MasterNodes' IsolationPrefix, or empty when they add none
     */
    OkuyamaKeys(Namespace own, String isolationPrefix) {
        this.own = own;
        this.isolation = isolationPrefix.isEmpty() ? "" : "#" + isolationPrefix;
    }

    Namespace own() {
        return own;
    }

    /** The key as a MasterNode request carries it. */
    String encode(Namespace namespace, byte[] key) {
        return ENCODER.encodeToString(stored(namespace, key));
    }

    static String encode(byte[] bytes) {
        return ENCODER.encodeToString(bytes);
    }

    private byte[] stored(Namespace namespace, byte[] key) {
        if (namespace.equals(own)) {
            return key;
        }
        byte[] name = namespace.name().getBytes(StandardCharsets.US_ASCII);
        byte[] stored = Arrays.copyOf(name, name.length + 1 + key.length);
        System.arraycopy(key, 0, stored, name.length + 1, key.length);
        return stored;
    }

    /**
     * The gateway's key in {@code namespace} of a key as a DataNode lists it, or null when that key is not one of
     * the namespace's: okuyama's own records (tags, lists, configuration), another tenant's (another isolation
     * prefix), another namespace's, or text that is not Base64.
     */
    byte[] listed(Namespace namespace, String listedKey) {
        if (listedKey.startsWith(TAG_RECORDS) || listedKey.startsWith(LIST_RECORDS)
                || listedKey.startsWith(CONFIGURATION_RECORDS)) {
            return null;
        }
        String encoded;
        if (listedKey.startsWith("#")) {
            if (isolation.isEmpty() || !listedKey.startsWith(isolation)) {
                return null;
            }
            encoded = listedKey.substring(isolation.length());
        } else if (!isolation.isEmpty()) {
            return null;
        } else {
            encoded = listedKey;
        }
        return decoded(namespace, encoded);
    }

    /**
     * The gateway's key in {@code namespace} of a key as a MasterNode names it (in Base64, its isolation prefix
     * taken off), or null when it is another namespace's or not Base64.
     */
    byte[] decoded(Namespace namespace, String encoded) {
        byte[] stored;
        try {
            stored = Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int zero = indexOfZero(stored);
        if (namespace.equals(own)) {
            // A key of the own keyspace may hold a zero byte; it is another namespace's only when what precedes the
            // zero is a namespace name.
            return zero > 0 && isNamespaceName(stored, zero) ? null : stored;
        }
        byte[] name = namespace.name().getBytes(StandardCharsets.US_ASCII);
        if (zero != name.length || !Arrays.equals(stored, 0, zero, name, 0, zero)) {
            return null;
        }
        return Arrays.copyOfRange(stored, zero + 1, stored.length);
    }

    private static int indexOfZero(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isNamespaceName(byte[] bytes, int length) {
        try {
            new Namespace(new String(bytes, 0, length, StandardCharsets.US_ASCII));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
