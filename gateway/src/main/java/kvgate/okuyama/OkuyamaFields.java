package kvgate.okuyama;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The fields of an okuyama request line: keys, tags and values in Base64 (one spelling of the bytes only), their
 * lengths within the reference's limits, and the numbers and names between them. A field that cannot be taken throws
 * {@link MissingField} or {@link BadField}, which the translator answers in the method's own words.
 */
final class OkuyamaFields {
    /** What the reference's clients send for an empty field. */
    static final String BLANK = "(B)";
    /** The reference's limits, on the Base64 text: a key or tag field must be shorter, as must a value field. */
    static final int MAX_KEY_FIELD = 468;
    static final int MAX_VALUE_FIELD = 2_170_552;
    private static final String BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    private OkuyamaFields() {
    }

    /** A request line without a field its method needs. */
    static final class MissingField extends RuntimeException {
        MissingField() {
            super(null, null, false, false);
        }
    }

    /** A key, tag or value field the gateway cannot take. */
    static final class BadField extends RuntimeException {
        enum Problem { KEY_TOO_LONG, VALUE_TOO_LONG, NOT_BASE64 }

        final Problem problem;

        BadField(Problem problem) {
            super(null, null, false, false);
            this.problem = problem;
        }
    }

    static String field(String[] fields, int index) {
        if (index >= fields.length) {
            throw new MissingField();
        }
        return fields[index];
    }

    static byte[] key(String field) {
        if (field.length() >= MAX_KEY_FIELD) {
            throw new BadField(BadField.Problem.KEY_TOO_LONG);
        }
        byte[] key = decode(field);
        if (key.length == 0) {
            throw new BadField(BadField.Problem.NOT_BASE64); // no key is empty
        }
        return key;
    }

    static byte[] tag(String field) {
        return key(field);
    }

    static List<byte[]> tags(String field) {
        List<byte[]> tags = new ArrayList<>();
        if (field.isEmpty() || field.equals(BLANK)) {
            return tags;
        }
        for (String tag : field.split(":")) {
            tags.add(tag(tag));
        }
        return tags;
    }

    /** A value to store: the reference's limit on the Base64 text, then the gateway's item size limit. */
    static byte[] value(String field, int maxValue) {
        if (field.length() >= MAX_VALUE_FIELD) {
            throw new BadField(BadField.Problem.VALUE_TOO_LONG);
        }
        byte[] value = field.equals(BLANK) ? new byte[0] : decode(field);
        if (value.length > maxValue) {
            throw new BadField(BadField.Problem.VALUE_TOO_LONG);
        }
        return value;
    }

    static String group(String field) {
        return field.isEmpty() || field.equals(BLANK) ? "" : new String(decode(field), StandardCharsets.UTF_8);
    }

    static int number(String field, int fallback) {
        try {
            return Integer.parseInt(field.strip());
        } catch (NumberFormatException e) {
            return fallback; // as the reference: a length that is not a number takes the default
        }
    }

    /**
     * Only the one text an encoder writes for some bytes is taken: padded to whole groups of four, nothing but the
     * alphabet (no spaces, no line breaks) and no stray bits before the padding. The reference keys items by the
     * Base64 text itself, so two spellings of the same bytes are two keys there; refusing every spelling but one
     * keeps the gateway's keys one-to-one with the reference's, and never stores what a client did not mean.
     */
    static byte[] decode(String field) {
        if (field.length() % 4 != 0 || !cleanEnd(field)) {
            throw new BadField(BadField.Problem.NOT_BASE64);
        }
        try {
            return Base64.getDecoder().decode(field);
        } catch (IllegalArgumentException e) {
            throw new BadField(BadField.Problem.NOT_BASE64);
        }
    }

    /** Whether the character before the padding carries no bits past the last byte (zero bits, as encoders write). */
    static boolean cleanEnd(String field) {
        int length = field.length();
        if (length == 0 || field.charAt(length - 1) != '=') {
            return true;
        }
        boolean two = field.charAt(length - 2) == '=';
        int last = BASE64_ALPHABET.indexOf(field.charAt(length - (two ? 3 : 2)));
        return last >= 0 && (last & (two ? 0x0f : 0x03)) == 0;
    }

    static String encode(byte[] bytes) {
        return bytes.length == 0 ? BLANK : Base64.getEncoder().encodeToString(bytes);
    }

    static String keyList(List<byte[]> keys) {
        StringBuilder list = new StringBuilder();
        for (byte[] key : keys) {
            if (list.length() > 0) {
                list.append(':');
            }
            list.append(encode(key));
        }
        return list.toString();
    }
}
