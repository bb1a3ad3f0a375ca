package kvgate.load;

/** How a reply answered its request. */
enum Outcome {
    /** A write (or a counter operation) that succeeded. */
    SUCCESS,
    /** A read that found its item, with the value it should have. */
    HIT,
    /** A read that found nothing: counted, not an error. */
    MISS,
    /** A reply that is well formed but not a success: an error of the run. */
    ERROR,
    /** A reply that cannot be read or is not the one awaited (wrong opaque, opcode or magic): the connection's
     *  stream can no longer be trusted, so it is closed. */
    BROKEN;

    boolean answered() {
        return this == SUCCESS || this == HIT || this == MISS;
    }

    boolean read() {
        return this == HIT || this == MISS;
    }
}
