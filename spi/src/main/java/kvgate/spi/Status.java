package kvgate.spi;

/**
 * The common vocabulary of outcomes. Every protocol translator maps each status to its own reply code and message,
 * so a backend only ever reports these.
 */
public enum Status {
    /** The operation did what it was asked. */
    OK,
    /** The key (or, for a CAS operation, the item to compare with) does not exist. */
    NOT_FOUND,
    /** The key exists where it must not (add), or its CAS differs from the one given. */
    EXISTS,
    /** The item was not stored for a reason other than the above (append or prepend to a missing key). */
    NOT_STORED,
    /** The request is malformed or its arguments are out of range. */
    INVALID,
    /** The value, or the value an append would produce, exceeds the item size limit. */
    TOO_LARGE,
    /** A counter acquisition would take the consumption above the maximum asked for. */
    LIMIT_REACHED,
    /** A counter release of more than the releasing connection holds. */
    NOT_HELD,
    /** Arithmetic on a value that is not an unsigned decimal number. */
    NON_NUMERIC,
    /** The backend is busy or unreachable for now; the client may retry. */
    TEMPORARY_FAILURE,
    /** The backend cannot do this operation at all. */
    UNSUPPORTED,
    /** The backend failed; whether the operation took effect is unknown. */
    BACKEND_ERROR
}
