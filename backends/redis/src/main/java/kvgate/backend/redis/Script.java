package kvgate.backend.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script of this backend, run by its SHA-1 with EVALSHA. Its text is a resource beside this class; item
 * scripts get {@code prelude.lua} (reading, writing and numbering items) in front.
 *
 * @param name the resource name without {@code .lua}, for messages
 * @param body the whole text Redis runs
 * @param sha its SHA-1, as EVALSHA names it
 */
record Script(String name, String body, String sha) {
    static final Script STORE = item("store");
    static final Script DELETE = item("delete");
    static final Script TOUCH = item("touch");
    static final Script ARITHMETIC = item("arithmetic");
    static final Script LEASE_GET = item("leaseget");
    static final Script INVALIDATE = item("invalidate");
    static final Script SCAN = plain("scan");
    static final Script FLUSH = plain("flush");
    static final Script TAG = plain("tag");
    static final Script INDEX = plain("index");
    static final Script COUNTER = plain("counter");
    static final Script UNLIST = plain("unlist");

    static final Script[] ALL = {STORE, DELETE, TOUCH, ARITHMETIC, LEASE_GET, INVALIDATE, SCAN, FLUSH, TAG, INDEX,
        COUNTER, UNLIST};

    private static Script item(String name) {
        return of(name, resource("prelude") + "\n" + resource(name));
    }

    private static Script plain(String name) {
        return of(name, resource(name));
    }

    private static Script of(String name, String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return new Script(name, body, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = Script.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("script resource " + name + ".lua is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
