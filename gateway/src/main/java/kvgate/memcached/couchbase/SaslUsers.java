package kvgate.memcached.couchbase;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import kvgate.config.ConfigurationException;
import kvgate.spi.SecretFiles;

/**
 * The users who may authenticate on the memcached port, read once at start from a password file in memcached's
 * format ({@code memcached.sasl_pwdb}: a line {@code user:password} each; blank lines and lines starting with
 * {@code #} are skipped). The clear password is kept for PLAIN and CRAM-MD5; for each SCRAM mechanism the file
 * is turned at once into what RFC 5802 has a server keep (salt, iteration count, StoredKey, ServerKey), so an
 * exchange costs two HMACs and a hash, not a key derivation.
 */
public final class SaslUsers {
    /** PBKDF2 rounds for the SCRAM credentials: RFC 7677's minimum for SHA-256, and what Couchbase clients accept. */
    static final int ITERATIONS = 4096;

    /** The SCRAM mechanisms served, strongest first, as Couchbase names them. */
    public enum Scram {
        SHA512("SCRAM-SHA512", "HmacSHA512", "SHA-512", "PBKDF2WithHmacSHA512"),
        SHA256("SCRAM-SHA256", "HmacSHA256", "SHA-256", "PBKDF2WithHmacSHA256"),
        SHA1("SCRAM-SHA1", "HmacSHA1", "SHA-1", "PBKDF2WithHmacSHA1");

        final String mechanism;
        final String hmac;
        final String digest;
        final String pbkdf2;

        Scram(String mechanism, String hmac, String digest, String pbkdf2) {
            this.mechanism = mechanism;
            this.hmac = hmac;
            this.digest = digest;
            this.pbkdf2 = pbkdf2;
        }

        /** The mechanism of this name, or null. */
        static Scram named(String mechanism) {
            for (Scram scram : values()) {
                if (scram.mechanism.equals(mechanism)) {
                    return scram;
                }
            }
            return null;
        }

        byte[] hmac(byte[] key, byte[] data) {
            return SaslUsers.hmac(hmac, key, data);
        }

        byte[] hash(byte[] data) {
            try {
                return MessageDigest.getInstance(digest).digest(data);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(digest + " is missing from the JDK", e);
            }
        }

        /** What the server keeps of a password: the salt and iterations it gives out, StoredKey and ServerKey. */
        Credentials credentials(String password, byte[] salt) {
            byte[] salted;
            try {
                // The JDK's PBKDF2 encodes the password's characters as UTF-8, as SCRAM's Hi() takes them.
                PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, ITERATIONS,
                        hash(new byte[0]).length * 8);
                salted = SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(pbkdf2 + " is missing from the JDK", e);
            }
            byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
            byte[] serverKey = hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
            return new Credentials(salt, hash(clientKey), serverKey);
        }
    }

    /** RFC 5802's server-side record of a user for one mechanism. */
    record Credentials(byte[] salt, byte[] storedKey, byte[] serverKey) {
    }

    private final Map<String, String> passwords;
    private final Map<Scram, Map<String, Credentials>> scram = new HashMap<>();
    /**
     * Keys the salt made up for a user the file does not have, so that an exchange for an unknown name looks like
     * one for a known name until its proof fails: the salt alone does not tell who exists.
     */
    private final byte[] unknownSaltKey = new byte[32];

    private SaslUsers(Map<String, String> passwords) {
        this.passwords = Map.copyOf(passwords);
        SecureRandom random = new SecureRandom();
        random.nextBytes(unknownSaltKey);
        for (Scram mechanism : Scram.values()) {
            Map<String, Credentials> users = new HashMap<>();
            passwords.forEach((user, password) -> {
                byte[] salt = new byte[16];
                random.nextBytes(salt);
                users.put(user, mechanism.credentials(password, salt));
            });
            scram.put(mechanism, users);
        }
    }

    /**
     * The users of a password file in memcached's format.
     *
     * @param key the setting that names the file, for the messages
     */
    public static SaslUsers read(String key, Path file) throws ConfigurationException {
        String setting = key + " = " + file + ": ";
        try {
            SecretFiles.checkPrivate(key, file);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage());
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigurationException(setting + "cannot read it: " + e.getMessage());
        }
        Map<String, String> passwords = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                problems.add("line " + (i + 1) + " is not user:password");
            } else if (colon == line.length() - 1) {
                problems.add("line " + (i + 1) + " gives user " + line.substring(0, colon) + " no password");
            } else if (passwords.put(line.substring(0, colon), line.substring(colon + 1)) != null) {
                problems.add("line " + (i + 1) + " names user " + line.substring(0, colon) + " again");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(setting + String.join("; ", problems));
        }
        if (passwords.isEmpty()) {
            throw new ConfigurationException(setting + "it names no user");
        }
        return new SaslUsers(passwords);
    }

    /** Whether {@code password} is the user's, compared in time independent of where they differ. */
    boolean plainMatches(String user, String password) {
        String known = passwords.get(user);
        byte[] given = password.getBytes(StandardCharsets.UTF_8);
        // An unknown user is compared too, against a password nobody has, so both take the same time.
        byte[] expected = passwordOrNone(known);
        return MessageDigest.isEqual(expected, given) && known != null;
    }

    /** Whether {@code digest} is the challenge's HMAC-MD5 under the user's password, in hex (CRAM-MD5). */
    boolean cramMatches(String user, byte[] challenge, String digest) {
        String known = passwords.get(user);
        byte[] password = passwordOrNone(known);
        byte[] expected = HexFormat.of().formatHex(hmac("HmacMD5", password, challenge))
                .getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, digest.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))
                && known != null;
    }

    /**
     * The user's credentials for {@code mechanism}, or, for a user the file lacks, credentials nobody can prove
     * with a salt derived from the name (the same on every attempt, as a real user's is).
     */
    Credentials credentials(Scram mechanism, String user) {
        Credentials known = scram.get(mechanism).get(user);
        if (known != null) {
            return known;
        }
        byte[] salt = new byte[16];
        System.arraycopy(mechanism.hmac(unknownSaltKey, user.getBytes(StandardCharsets.UTF_8)), 0, salt, 0, 16);
        byte[] nobody = new byte[mechanism.hash(new byte[0]).length];
        return new Credentials(salt, nobody, nobody);
    }

    /**
     * A user's password as bytes, or for a user the file lacks one nobody has (no password holds a NUL), so that both
     * are checked the same way and take the same time.
     */
    private static byte[] passwordOrNone(String known) {
        return (known == null ? "\0unknown" : known).getBytes(StandardCharsets.UTF_8);
    }

    /** The HMAC of {@code data} under {@code key} with the JDK's {@code algorithm}. */
    static byte[] hmac(String algorithm, byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(key, algorithm));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is missing from the JDK", e);
        }
    }

    /** Whether the file names {@code user}. */
    boolean has(String user) {
        return passwords.containsKey(user);
    }
}
