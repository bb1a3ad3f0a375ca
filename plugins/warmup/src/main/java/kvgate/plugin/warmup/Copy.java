package kvgate.plugin.warmup;

import kvgate.spi.Item;
import kvgate.spi.Result;

/**
 * What became of one attempt to copy an item of the old store into the new one.
 *
 * @param outcome what happened
 * @param item the item as the new store now holds it (its CAS is the new store's) when {@link Outcome#COPIED}; the
 *     old store's item when the copy did not happen; null when the old store held nothing
 * @param failure the failure of a store when {@link Outcome#FAILED}, else null
 */
record Copy(Outcome outcome, Item item, Result failure) {

    enum Outcome {
        /** The new store now holds the old item. */
        COPIED,
        /** The new store already held the key: a write or another copy was first. */
        PRESENT,
        /**
         * A write of the key started or ended, or a flush started, after the old store was read (the copy was
         * refused); or once the copy landed a flush had started, or the old store's item had changed or could not be
         * read again (the copy was taken back).
         */
        RACED,
        /** The old store holds no such key. */
        ABSENT,
        /** A store failed; {@link #failure} says how. */
        FAILED
    }

    static Copy of(Outcome outcome, Item item) {
        return new Copy(outcome, item, null);
    }

    static Copy failed(Item item, Result failure) {
        return new Copy(Outcome.FAILED, item, failure);
    }
}
