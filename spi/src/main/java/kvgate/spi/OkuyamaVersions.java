package kvgate.spi;

/**
 * okuyama's versions as CAS values, one convention for the okuyama protocol (which shows a client an item's CAS as
 * its version) and the okuyama backend (whose items' CAS is the cluster's version). An okuyama MasterNode stamps
 * each write with a version (a random-prefixed clock reading, or the version checked plus one) and compares versions
 * as text in its version-checked store. A version is its number as CAS, except {@code 0}, which okuyama gives an add
 * with an expiry and which as a CAS would mean "no check": it is {@link Long#MIN_VALUE}, which no version is.
 */
public final class OkuyamaVersions {
    private static final long ZERO = Long.MIN_VALUE;
    /** The CAS of text that is no version (a stored value without one): no item has it, so a check against it fails. */
    public static final long NONE = -1;

    private OkuyamaVersions() {
    }

    /** The CAS a version stands for; {@link #NONE} for text that is not a version. */
    public static long cas(String version) {
        try {
            long parsed = Long.parseLong(version.strip());
            return parsed == 0 ? ZERO : parsed;
        } catch (NumberFormatException e) {
            return NONE;
        }
    }

    /** The version a client is shown for a CAS. */
    public static String version(long cas) {
        return cas == ZERO ? "0" : Long.toString(cas);
    }
}
