package kvgate.route.generic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * Tags for a backend without {@link kvgate.spi.Capability#TAGS}: each tag of each namespace is one key list in
 * namespace {@code kvgate:tags}, under the key {@code <namespace> 0x00 <tag>}.
 */
public final class GenericTags {
    static final Namespace RECORDS = new Namespace("kvgate:tags");
    /** The most tag records (of every namespace) a {@link #dropAll} lists. */
    private static final int DROP_LIMIT = 10_000_000;

    private final KeyLists lists;

    public GenericTags(KeyLists lists) {
        this.lists = lists;
    }

    public CompletionStage<Result> tag(Operation.Tag tag) {
        byte[] entry = KeyLog.added(List.of(tag.key()));
        List<CompletionStage<Result>> appends = new ArrayList<>(tag.tags().size());
        for (byte[] name : tag.tags()) {
            appends.add(lists.append(RECORDS, KeyLists.record(tag.namespace(), name), entry));
        }
        return KeyLists.allDone(appends);
    }

    public CompletionStage<Result> untag(Operation.Untag untag) {
        byte[] record = KeyLists.record(untag.namespace(), untag.tag());
        return lists.read(RECORDS, List.of(record)).thenCompose(listed -> {
            if (!listed.get(0).replay().contains(untag.key())) {
                return CompletableFuture.completedFuture(
                        (Result) Result.failure(Status.NOT_FOUND, "the tag does not list the key"));
            }
            return lists.append(RECORDS, record, KeyLog.removed(List.of(untag.key())));
        }).exceptionally(KeyLists.Failed::of);
    }

    /**
     * Removes every tag record of the namespace: the records of all namespaces are listed (the store's own listing,
     * {@code listing}), and those under {@code <namespace> 0x00} deleted. A truncate's cost, paid once.
     */
    public CompletionStage<Result> dropAll(Operation.DropTags drop,
                                           Function<Operation.Scan, CompletionStage<Result>> listing) {
        byte[] prefix = KeyLists.record(drop.namespace(), new byte[0]);
        return listing.apply(new Operation.Scan(RECORDS, DROP_LIMIT, true)).thenCompose(listed -> {
            if (!(listed instanceof Result.Entries entries)) {
                return CompletableFuture.completedFuture(listed);
            }
            List<CompletionStage<Result>> deletes = new ArrayList<>();
            for (Result.Entry entry : entries.entries()) {
                byte[] key = entry.key();
                if (key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
                    // Gone meanwhile is as good as deleted.
                    deletes.add(lists.execute(new Operation.Delete(RECORDS, key, 0)).thenApply(deleted ->
                            deleted.status() == Status.NOT_FOUND ? Result.DONE : deleted));
                }
            }
            return KeyLists.allDone(deletes);
        });
    }

    public CompletionStage<Result> taggedKeys(Operation.TaggedKeys query) {
        return lists.read(RECORDS, List.of(KeyLists.record(query.namespace(), query.tag()))).thenCompose(read -> {
            KeyLists.Listed listed = read.get(0);
            if (listed.replay().wasteful()) {
                lists.rewrite(listed, listed.replay().keys());
            }
            List<byte[]> keys = KeyLog.Replay.bytes(listed.replay().keys());
            if (query.includeRemoved() || keys.isEmpty()) {
                return CompletableFuture.completedFuture((Result) new Result.Keys(keys));
            }
            return lists.items(query.namespace(), keys).thenApply(items -> {
                List<byte[]> live = new ArrayList<>(keys.size());
                for (int i = 0; i < keys.size(); i++) {
                    Item item = items.get(i);
                    if (item != null) {
                        live.add(keys.get(i));
                    }
                }
                return (Result) new Result.Keys(live);
            });
        }).exceptionally(KeyLists.Failed::of);
    }
}
