package kvgate.route.generic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * Namespace scans for a backend without {@link kvgate.spi.Capability#SCAN}: the gateway lists every key it stores
 * in a tracked namespace, in 16 key lists (shards, by key hash) in namespace {@code kvgate:directory} under
 * {@code <namespace> 0x00 <shard>}. Every gateway appends after each successful store, so the directory is shared
 * by all of them. A scan reads the shards and the items they name; keys whose item is gone are dropped from their
 * shard then, by a CAS rewrite that loses to any concurrent append.
 */
public final class KeyDirectory {
    static final Namespace RECORDS = new Namespace("kvgate:directory");
    private static final int SHARDS = 16;

    /** Which namespaces have a directory ({@code scan.directory}). */
    public enum Scope {
        ALL, EXCEPT_DEFAULT, NONE;

        public static Scope parse(String text) {
            return valueOf(text.toUpperCase(Locale.ROOT));
        }
    }

    private final KeyLists lists;
    private final Scope scope;

    public KeyDirectory(KeyLists lists, Scope scope) {
        this.lists = lists;
        this.scope = scope;
    }

    /** Whether stores into {@code namespace} are listed (the gateway's own records never are). */
    public boolean tracks(Namespace namespace) {
        if (namespace.name().startsWith("kvgate:")) {
            return false;
        }
        return switch (scope) {
            case ALL -> true;
            case EXCEPT_DEFAULT -> !namespace.equals(Namespace.DEFAULT);
            case NONE -> false;
        };
    }

    /** Lists {@code key} after a store into {@code namespace} succeeded. */
    public CompletionStage<Result> register(Namespace namespace, byte[] key) {
        return lists.append(RECORDS, shard(namespace, Arrays.hashCode(key) & (SHARDS - 1)),
                KeyLog.added(List.of(key)));
    }

    public CompletionStage<Result> scan(Operation.Scan scan) {
        if (!tracks(scan.namespace())) {
            return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED,
                    "this backend cannot list namespace " + scan.namespace().name()
                            + " and scan.directory does not track it"));
        }
        List<byte[]> shards = new ArrayList<>(SHARDS);
        for (int i = 0; i < SHARDS; i++) {
            shards.add(shard(scan.namespace(), i));
        }
        return lists.read(RECORDS, shards).thenCompose(listed -> {
            List<String> names = new ArrayList<>();
            for (KeyLists.Listed shard : listed) {
                names.addAll(shard.replay().keys());
            }
            List<byte[]> keys = KeyLog.Replay.bytes(names);
            return lists.items(scan.namespace(), keys).thenApply(items -> {
                List<Result.Entry> entries = new ArrayList<>();
                Set<String> gone = new HashSet<>();
                for (int i = 0; i < keys.size(); i++) {
                    Item item = items.get(i);
                    if (item == null) {
                        gone.add(names.get(i));
                    } else {
                        entries.add(new Result.Entry(keys.get(i), item));
                    }
                }
                lists.prune(listed, gone);
                if (entries.size() > scan.limit()) {
                    return (Result) Result.failure(Status.TOO_LARGE,
                            "the namespace holds more than " + scan.limit() + " items");
                }
                return (Result) new Result.Entries(entries);
            });
        }).exceptionally(KeyLists.Failed::of);
    }

    private static byte[] shard(Namespace namespace, int shard) {
        return KeyLists.record(namespace, new byte[] {(byte) shard});
    }
}
