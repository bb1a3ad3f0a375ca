package kvgate.backend.okuyama;

/**
 * okuyama's versions as CAS values. A MasterNode stamps each write with a version (the number after {@code !} in
 * the stored value: a random-prefixed clock reading, or the version checked plus one) and compares versions as text
 * in its version-checked store (16). The gateway's CAS is that number, except that version {@code 0} (an add with an
 * expiry gets it) is a CAS the gateway cannot hand out (0 means "no check"), so it becomes {@link Long#MIN_VALUE},
 * which no version is.
 */
final class Versions {
    private static final long ZERO = Long.MIN_VALUE;
    /** A stored value without a version: no CAS can name it, so a version-checked store of it fails. */
    static final long NONE = -1;

    private Versions() {
    }

    static long cas(String version) {
        try {
            long parsed = Long.parseLong(version.strip());
            return parsed == 0 ? ZERO : parsed;
        } catch (NumberFormatException e) {
            return NONE;
        }
    }

    static String version(long cas) {
        return cas == ZERO ? "0" : Long.toString(cas);
    }
}
