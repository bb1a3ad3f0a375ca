package kvgate.backend.redis;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Backend;
import kvgate.spi.BlockingWork;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * A Redis that applications filled themselves ({@code redis.layout = plain}): its string keys are the items of the
 * default namespace, as they are, their values the items' values, their TTLs the items' expiries; flags and CAS do
 * not exist there. It serves what such keys can carry, so that the warm-up node can move an application's Redis onto
 * another store: gets (with the remaining TTL), set, add and replace without flags or CAS, delete, touch, and the
 * exhaustive scan a backfill lists with (SCAN of every string key, on every master of a cluster). Other namespaces
 * are empty there: reading them finds nothing. Everything else is {@link Status#UNSUPPORTED}: appends and
 * arithmetic, whose Redis commands do not keep memcached's rules; CAS and flags, which would have nowhere to live;
 * writes to other namespaces; and a flush, which would empty the application's Redis.
 * Nothing of the gateway's own is ever written there.
 */
final class PlainRedisBackend implements Backend {
    /** Keys asked of each SCAN call. */
    private static final int SCAN_COUNT = 1000;

    private final RedisConnections connections;
    private final Clock clock;
    /** Where a scan walks the keyspace and reads the items: blocking, never on a network thread. */
    private final BlockingWork lister = new BlockingWork("kvgate-redis-listing");

    PlainRedisBackend(RedisConnections connections, Clock clock) {
        this.connections = connections;
        this.clock = clock;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.SHARED, Capability.KEEP_EXPIRY);
    }

    private static CompletionStage<Result> unsupported(String why) {
        return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED, "redis.layout = plain: " + why));
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        if (!operation.namespace().equals(Namespace.DEFAULT)) {
            return otherNamespace(operation);
        }
        RedisConnections.Channel channel = connections.shared();
        try {
            return operation.accept(new Operation.Visitor<>() {
                @Override
                public CompletionStage<Result> get(Operation.Get get) {
                    return read(channel, get.key());
                }

                @Override
                public CompletionStage<Result> store(Operation.Store store) {
                    if (store.cas() != 0 || store.flags() != 0) {
                        return unsupported("a plain Redis key has no " + (store.cas() != 0 ? "CAS" : "flags"));
                    }
                    SetArgs args = new SetArgs();
                    switch (store.mode()) {
                        case SET -> { }
                        case ADD -> args.nx();
                        case REPLACE -> args.xx();
                        default -> {
                            return unsupported(store.mode() + " (Redis's APPEND creates a missing key)");
                        }
                    }
                    if (store.keepExpiry()) {
                        args.keepttl();
                    } else if (store.expiresAt() != Item.NEVER) {
                        // Already past: stored and gone at once, as memcached treats it.
                        args.px(Math.max(1, store.expiresAt() - clock.millis()));
                    }
                    return channel.commands().set(store.key(), store.value(), args).thenApply(ok -> ok == null
                            ? Result.failure(Status.NOT_STORED) : new Result.Stored(0));
                }

                @Override
                public CompletionStage<Result> delete(Operation.Delete delete) {
                    if (delete.cas() != 0) {
                        return unsupported("a plain Redis key has no CAS");
                    }
                    return channel.commands().del(delete.key()).thenApply(gone -> gone == 0
                            ? Result.failure(Status.NOT_FOUND) : new Result.Removed(null));
                }

                @Override
                public CompletionStage<Result> arithmetic(Operation.Arithmetic arithmetic) {
                    return unsupported("Redis's INCRBY does not keep memcached's unsigned arithmetic");
                }

                @Override
                public CompletionStage<Result> touch(Operation.Touch touch) {
                    CompletionStage<Boolean> set = touch.expiresAt() == Item.NEVER
                            ? channel.commands().persist(touch.key())
                            : channel.commands().pexpireat(touch.key(), touch.expiresAt());
                    return set.thenCompose(ignored -> read(channel, touch.key()));
                }

                @Override
                public CompletionStage<Result> flush(Operation.Flush flush) {
                    return unsupported("a flush would empty the application's Redis");
                }

                @Override
                public CompletionStage<Result> scan(Operation.Scan scan) {
                    return scan.exhaustive() ? listAll(scan)
                            : unsupported("keys are listed only for a migration's exhaustive scan");
                }
            });
        } catch (UnsupportedOperationException e) {
            return unsupported(e.getMessage());
        }
    }

    /**
     * An operation on another namespace than the default: the application's Redis holds none of them, so reads find
     * nothing there (a warm-up's reads of the gateway's own records fall through to the new store) and writes cannot
     * be kept.
     */
    private static CompletionStage<Result> otherNamespace(Operation operation) {
        if (operation instanceof Operation.Get || operation instanceof Operation.Delete
                || operation instanceof Operation.Touch) {
            return CompletableFuture.completedFuture(Result.failure(Status.NOT_FOUND));
        }
        if (operation instanceof Operation.Scan) {
            return CompletableFuture.completedFuture(new Result.Entries(List.of()));
        }
        return unsupported("an application's keys are the default namespace's only, not "
                + operation.namespace().name() + "'s");
    }

    /** A key's value and remaining TTL, read together: the item, or NOT_FOUND. */
    private CompletionStage<Result> read(RedisConnections.Channel channel, byte[] key) {
        CompletionStage<byte[]> value = channel.commands().get(key);
        CompletionStage<Long> ttl = channel.commands().pttl(key);
        long now = clock.millis();
        return value.thenCombine(ttl, (bytes, millis) -> bytes == null ? Result.failure(Status.NOT_FOUND)
                : new Result.Value(new Item(bytes, 0, 0, millis != null && millis > 0 ? now + millis : Item.NEVER)));
    }

    /**
     * Every string key of the Redis (every master's, on a cluster: Lettuce's cluster SCAN walks them one after
     * another), read with its TTL; keys of other types are not items and are passed over. Runs on a thread of its
     * own, as the walk is a loop of round trips.
     */
    private CompletionStage<Result> listAll(Operation.Scan scan) {
        return lister.run(() -> {
            try {
                return listNow(scan);
            } catch (RuntimeException e) {
                return RedisBackend.failure(e, true);
            }
        });
    }

    private Result listNow(Operation.Scan scan) {
        RedisConnections.Channel channel = connections.shared();
        KeyScanArgs strings = KeyScanArgs.Builder.limit(SCAN_COUNT).type("string");
        List<byte[]> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<byte[]> page = channel.commands().scan(cursor, strings).toCompletableFuture().join();
            keys.addAll(page.getKeys());
            if (keys.size() > scan.limit()) {
                return Result.failure(Status.TOO_LARGE, "the Redis holds more than " + scan.limit() + " string keys");
            }
            cursor = page;
        } while (!cursor.isFinished());
        List<Result.Entry> entries = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            Result read = read(channel, key).toCompletableFuture().join();
            if (read instanceof Result.Value value) {
                entries.add(new Result.Entry(key, value.item()));
            } else if (read.status() != Status.NOT_FOUND) {
                return read; // gone meanwhile is fine; a node that fails is the scan's failure
            }
        }
        return new Result.Entries(entries);
    }

    @Override
    public void close() {
        lister.close();
        connections.close();
    }
}
