package kvgate.memcached.couchbase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The SASL authentication of one memcached connection: PLAIN (RFC 4616) and CRAM-MD5 (RFC 2195), as memcached
 * serves them and its clients use them (spymemcached tries CRAM-MD5 first), and SCRAM-SHA512, -SHA256 and -SHA1
 * (RFC 5802, without channel binding), as Couchbase servers do, for the clients that offer no PLAIN over a
 * connection without TLS. SASL_AUTH starts an exchange (the mechanism in the key, the client's first message in
 * the value), SASL_STEP continues it. Confined to the connection's thread, as its translator is.
 *
 * <p>Without a password file every PLAIN and CRAM-MD5 authentication succeeds (the gateway checks no credentials
 * then), and SCRAM is not offered: its server must prove it knows the password too.
 */
public final class SaslExchange {
    /** What a step of the exchange answers. */
    public sealed interface Step permits Continue, Done, Failed {
    }

    /** The exchange goes on: the server's challenge, answered with SASL_STEP. */
    public record Continue(byte[] challenge) implements Step {
    }

    /** Authenticated as {@code user}; {@code data} is the server's last message (SCRAM's signature), or empty. */
    public record Done(String user, byte[] data) implements Step {
    }

    /**
     * Not authenticated.
     *
     * @param user the user the client named, for the operator's log; null where the exchange named none
     */
    public record Failed(String why, String user) implements Step {
        public Failed(String why) {
            this(why, null);
        }
    }

    /** An exchange waiting for the client's next message. */
    private sealed interface Pending permits ScramPending, CramPending {
        String mechanism();
    }

    /** A SCRAM exchange waiting for the client's final message. */
    private record ScramPending(SaslUsers.Scram scram, String user, String gs2Header, String clientFirstBare,
                                String serverFirst, String nonce, SaslUsers.Credentials credentials)
            implements Pending {
        @Override
        public String mechanism() {
            return scram.mechanism;
        }
    }

    /** A CRAM-MD5 exchange waiting for the client's {@code user hex(HMAC-MD5(password, challenge))}. */
    private record CramPending(byte[] challenge) implements Pending {
        @Override
        public String mechanism() {
            return CRAM_MD5;
        }
    }

    private static final String CRAM_MD5 = "CRAM-MD5";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder BASE64 = Base64.getEncoder();
    private static final byte[] NONE = new byte[0];

    /** Null when no password file is configured. */
    private final SaslUsers users;
    private Pending pending;

    public SaslExchange(SaslUsers users) {
        this.users = users;
    }

    /** The mechanisms offered, space-separated, strongest first: SASL_LIST_MECHS's answer. */
    public static String mechanisms(SaslUsers users) {
        StringBuilder names = new StringBuilder();
        if (users != null) {
            for (SaslUsers.Scram scram : SaslUsers.Scram.values()) {
                names.append(scram.mechanism).append(' ');
            }
        }
        return names.append(CRAM_MD5).append(" PLAIN").toString();
    }

    /** SASL_AUTH: starts an exchange, abandoning any under way. */
    public Step start(String mechanism, byte[] message) {
        pending = null;
        if (mechanism.equals("PLAIN")) {
            return plain(message);
        }
        if (mechanism.equals(CRAM_MD5)) {
            byte[] nonce = new byte[18];
            RANDOM.nextBytes(nonce);
            byte[] challenge = ("<" + BASE64.encodeToString(nonce) + "@kvgate>").getBytes(StandardCharsets.US_ASCII);
            pending = new CramPending(challenge);
            return new Continue(challenge);
        }
        SaslUsers.Scram scram = SaslUsers.Scram.named(mechanism);
        if (scram == null || users == null) {
            return new Failed("mechanism " + mechanism + " is not offered");
        }
        return scramFirst(scram, new String(message, StandardCharsets.UTF_8));
    }

    /** SASL_STEP: the next message of the exchange under way for {@code mechanism}. */
    public Step step(String mechanism, byte[] message) {
        Pending under = pending;
        pending = null;
        if (under == null || !under.mechanism().equals(mechanism)) {
            return new Failed("no " + mechanism + " exchange under way");
        }
        String text = new String(message, StandardCharsets.UTF_8);
        return under instanceof ScramPending scram ? scramFinal(scram, text) : cram((CramPending) under, text);
    }

    /** CRAM-MD5's response: the user, a space, and the challenge's HMAC-MD5 under the password, in lower-case hex. */
    private Step cram(CramPending under, String response) {
        int space = response.lastIndexOf(' ');
        if (space <= 0) {
            return new Failed("CRAM-MD5 takes user SP digest");
        }
        String user = response.substring(0, space);
        if (users != null && !users.cramMatches(user, under.challenge(), response.substring(space + 1))) {
            return new Failed("wrong user or password", user);
        }
        return new Done(user, NONE);
    }

    /** {@code [authzid] NUL authcid NUL passwd}; an authzid other than the user is refused. */
    private Step plain(byte[] message) {
        String text = new String(message, StandardCharsets.UTF_8);
        int first = text.indexOf('\0');
        int second = first < 0 ? -1 : text.indexOf('\0', first + 1);
        if (second < 0 || text.indexOf('\0', second + 1) >= 0) {
            return new Failed("PLAIN takes authzid NUL user NUL password");
        }
        String authzid = text.substring(0, first);
        String user = text.substring(first + 1, second);
        String password = text.substring(second + 1);
        if (user.isEmpty() || !authzid.isEmpty() && !authzid.equals(user)) {
            return new Failed("PLAIN names no user, or another user to act as");
        }
        if (users != null && !users.plainMatches(user, password)) {
            return new Failed("wrong user or password", user);
        }
        return new Done(user, NONE);
    }

    /**
     * The client's first message: {@code gs2-header client-first-message-bare}, the header {@code n,,} or
     * {@code y,,} (no channel binding; an authzid, if any, the user's), the bare part {@code n=user,r=nonce}.
     */
    private Step scramFirst(SaslUsers.Scram scram, String message) {
        int headerEnd = gs2HeaderEnd(message);
        if (headerEnd < 0) {
            return new Failed("SCRAM's first message must start with n,, or y,, (channel binding is not offered)");
        }
        String gs2Header = message.substring(0, headerEnd);
        String bare = message.substring(headerEnd);
        if (!bare.startsWith("n=")) {
            return new Failed("SCRAM's first message must name the user (n=)");
        }
        int comma = bare.indexOf(",r=");
        if (comma < 0) {
            return new Failed("SCRAM's first message must carry a nonce (r=)");
        }
        String user = unescape(bare.substring(2, comma));
        int nonceEnd = bare.indexOf(',', comma + 3);
        String clientNonce = bare.substring(comma + 3, nonceEnd < 0 ? bare.length() : nonceEnd);
        String authzid = gs2Header.substring(2, gs2Header.length() - 1);
        boolean actsAsUser = authzid.isEmpty() || authzid.startsWith("a=") && user != null
                && user.equals(unescape(authzid.substring(2)));
        if (user == null || user.isEmpty() || clientNonce.isEmpty() || !actsAsUser) {
            return new Failed("SCRAM's first message names no user, another user to act as, or no nonce");
        }
        byte[] serverNonce = new byte[18];
        RANDOM.nextBytes(serverNonce);
        String nonce = clientNonce + BASE64.encodeToString(serverNonce);
        SaslUsers.Credentials credentials = users.credentials(scram, user);
        String serverFirst = "r=" + nonce + ",s=" + BASE64.encodeToString(credentials.salt()) + ",i="
                + SaslUsers.ITERATIONS;
        pending = new ScramPending(scram, user, gs2Header, bare, serverFirst, nonce, credentials);
        return new Continue(serverFirst.getBytes(StandardCharsets.UTF_8));
    }

    /** The client's final message, {@code c=<gs2 header>,r=<nonce>,p=<proof>}: checks the proof, signs. */
    private Step scramFinal(ScramPending under, String message) {
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            return new Failed("SCRAM's final message carries no proof (p=)");
        }
        String withoutProof = message.substring(0, proofAt);
        String expectedStart = "c=" + BASE64.encodeToString(under.gs2Header().getBytes(StandardCharsets.UTF_8))
                + ",r=" + under.nonce();
        if (!withoutProof.equals(expectedStart) && !withoutProof.startsWith(expectedStart + ",")) {
            return new Failed("SCRAM's final message does not carry the exchange's header and nonce");
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(message.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            return new Failed("SCRAM's proof is not Base64");
        }
        SaslUsers.Scram scram = under.scram();
        byte[] authMessage = (under.clientFirstBare() + "," + under.serverFirst() + "," + withoutProof)
                .getBytes(StandardCharsets.UTF_8);
        byte[] signature = scram.hmac(under.credentials().storedKey(), authMessage);
        if (proof.length != signature.length) {
            return new Failed("wrong user or password", under.user());
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        if (!MessageDigest.isEqual(scram.hash(clientKey), under.credentials().storedKey())
                || !users.has(under.user())) {
            return new Failed("wrong user or password", under.user());
        }
        byte[] serverSignature = scram.hmac(under.credentials().serverKey(), authMessage);
        return new Done(under.user(), ("v=" + BASE64.encodeToString(serverSignature))
                .getBytes(StandardCharsets.UTF_8));
    }

    /** Where the gs2 header ({@code n,} or {@code y,}, an optional {@code a=authzid}, a comma) ends, or -1. */
    private static int gs2HeaderEnd(String message) {
        if (!message.startsWith("n,") && !message.startsWith("y,")) {
            return -1;
        }
        int second = message.indexOf(',', 2);
        return second < 0 ? -1 : second + 1;
    }

    /** A SCRAM saslname with {@code =2C} and {@code =3D} decoded; null when another {@code =} escape appears. */
    private static String unescape(String name) {
        StringBuilder plain = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c != '=') {
                plain.append(c);
            } else if (name.startsWith("=2C", i)) {
                plain.append(',');
                i += 2;
            } else if (name.startsWith("=3D", i)) {
                plain.append('=');
                i += 2;
            } else {
                return null;
            }
        }
        return plain.toString();
    }
}
