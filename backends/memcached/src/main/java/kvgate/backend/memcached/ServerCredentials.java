package kvgate.backend.memcached;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The user and password a connection authenticates with to memcached servers started with SASL ({@code -S}): the
 * mechanisms a memcached server offers through Cyrus SASL with a password database, CRAM-MD5 (the password never
 * crosses the network) before PLAIN.
 */
record ServerCredentials(String user, String password) {
    static final String CRAM_MD5 = "CRAM-MD5";
    static final String PLAIN = "PLAIN";

    @Override
    public String toString() {
        return "ServerCredentials[user=" + user + "]"; // never the password, in a log or an error
    }

    /** The mechanism to use of those a server lists (space-separated), or null when it offers none of ours. */
    static String mechanism(String offered) {
        List<String> mechanisms = List.of(offered.trim().split("\\s+"));
        if (mechanisms.contains(CRAM_MD5)) {
            return CRAM_MD5;
        }
        return mechanisms.contains(PLAIN) ? PLAIN : null;
    }

    /** PLAIN's one message: no authorization identity, the user, the password. */
    byte[] plain() {
        return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    /** CRAM-MD5's answer to a server's challenge (RFC 2195): the user, a space, the challenge's HMAC-MD5 in hex. */
    byte[] cramMd5(byte[] challenge) {
        try {
            Mac mac = Mac.getInstance("HmacMD5");
            mac.init(new SecretKeySpec(password.getBytes(StandardCharsets.UTF_8), "HmacMD5"));
            return (user + " " + HexFormat.of().formatHex(mac.doFinal(challenge))).getBytes(StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacMD5 is part of every Java platform", e);
        }
    }
}
