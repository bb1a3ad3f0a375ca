package kvgate.net;

/**
 * What bounds the reading of one protocol's requests beyond a frame's own length: the time a request may take to
 * arrive whole, and the memory all connections' partial requests may hold together. A protocol's decoders share one
 * (from {@link ProtocolContext#readLimits}), so its cuts and sheds are counted and logged together.
 *
 * @param shed counts and logs the connections the budget sheds
 * @param outOfMemory counts and logs, as errors, the connections closed because memory for a read ran out all the
 *     same (the budget is set higher than the memory there is, or something else took it)
 */
public record ReadLimits(RequestDeadline deadline, ReadBudget budget, RefusalLog shed, RefusalLog outOfMemory) {
    /** No deadline and no budget. */
    public static final ReadLimits NONE = new ReadLimits(RequestDeadline.NONE, ReadBudget.NONE, null, null);
}
