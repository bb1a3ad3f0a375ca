package kvgate.memcached;

import kvgate.collections.CollectionsManifest;
import kvgate.spi.Item;

/**
 * memcached's expiry field as an absolute time: 0 never expires; up to 30 days it is relative seconds; beyond that,
 * an absolute Unix time; negative (the field read as a signed 32-bit number) means already expired.
 */
final class MemcachedExpiry {
    static final int THIRTY_DAYS = 60 * 60 * 24 * 30;
    /** An absolute time in the past that is not {@link Item#NEVER}. */
    static final long ALREADY_EXPIRED = 1;

    private MemcachedExpiry() {
    }

    static long toMillis(int expiry, long nowMillis) {
        if (expiry == 0) {
            return Item.NEVER;
        }
        if (expiry < 0) {
            return ALREADY_EXPIRED;
        }
        if (expiry <= THIRTY_DAYS) {
            return nowMillis + expiry * 1000L;
        }
        return expiry * 1000L;
    }

    /**
     * When an item given {@code expiry} now expires in {@code collection}, whose maxTTL bounds the expiry of new
     * items: no expiry becomes maxTTL, a longer one is cut to it.
     */
    static long expiresAt(int expiry, CollectionsManifest.Collection collection, long nowMillis) {
        long expiresAt = toMillis(expiry, nowMillis);
        long maxTtl = collection.maxTtlSeconds();
        if (maxTtl == 0) {
            return expiresAt;
        }
        long limit = nowMillis + maxTtl * 1000;
        return expiresAt == Item.NEVER || expiresAt > limit ? limit : expiresAt;
    }

    /** A flush delay in the same encoding, as milliseconds from now (0: at once). */
    static long delayMillis(int expiry, long nowMillis) {
        long at = toMillis(expiry, nowMillis);
        return at == Item.NEVER ? 0 : Math.max(0, at - nowMillis);
    }
}
