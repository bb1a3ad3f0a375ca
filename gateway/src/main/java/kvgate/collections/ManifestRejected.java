package kvgate.collections;

/** Why a manifest was not set, and a message for the operator (the reply context). */
public final class ManifestRejected extends Exception {

    /** The outcomes each protocol maps to its own status. */
    public enum Reason {
        /** The JSON or one of its values breaks a rule of the manifest format. */
        INVALID,
        /** The manifest's uid is lower than the current manifest's. */
        UID_BEHIND,
        /** Valid on its own, but not a successor of the current manifest (an id renamed or moved). */
        CANNOT_APPLY,
        /** Another update of the same bucket's manifest was under way; the client may retry. */
        CONCURRENT_UPDATE,
        /** The backend holding the manifest failed. */
        STORE_FAILED
    }

    private final Reason reason;

    public ManifestRejected(Reason reason, String message) {
        super(message, null, false, false); // an expected answer, not a fault: no stack trace
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
