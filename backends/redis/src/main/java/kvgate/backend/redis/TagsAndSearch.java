package kvgate.backend.redis;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * okuyama's tags and full-text index kept in Redis ({@link KeyLayout} says where): a tag is a sorted set, each
 * n-gram of an index group a set, a search one SINTER per word (AND: one for all words) followed by a read of the
 * candidates' current values, since postings of overwritten or removed values are not taken back.
 *
 * <p>Commands sent from a completion (after a first reply) go on the shared connection: the calling event loop's
 * own connection is flushed only by that loop.
 */
final class TagsAndSearch {
    /** Keys a SCAN page of {@link #dropTags} asks for. */
    private static final int DROP_PAGE = 1000;

    private final RedisBackend backend;
    private final RedisConnections connections;

    TagsAndSearch(RedisBackend backend, RedisConnections connections) {
        this.backend = backend;
        this.connections = connections;
    }

    CompletionStage<Result> tag(RedisConnections.Channel channel, Operation.Tag tag) {
        List<CompletableFuture<Long>> added = new ArrayList<>(tag.tags().size());
        for (byte[] name : tag.tags()) {
            added.add(backend.<Long>run(channel, Script.TAG, ScriptOutputType.INTEGER,
                    RedisBackend.keys(KeyLayout.tagKey(tag.namespace(), name)), tag.key()).toCompletableFuture());
        }
        return CompletableFuture.allOf(added.toArray(CompletableFuture[]::new)).thenApply(done -> Result.DONE);
    }

    CompletionStage<Result> untag(RedisConnections.Channel channel, Operation.Untag untag) {
        return channel.commands().zrem(KeyLayout.tagKey(untag.namespace(), untag.tag()), untag.key())
                .thenApply(removed -> removed > 0 ? Result.DONE
                        : Result.failure(Status.NOT_FOUND, "the tag does not list the key"));
    }

    /**
     * Deletes every tag of the namespace: its sorted sets found by SCAN (on every master of a cluster, on the shared
     * connection, as the walk is a chain of replies), each deleted on its own, as they lie in different slots.
     */
    CompletionStage<Result> dropTags(Operation.DropTags drop) {
        KeyScanArgs tags = KeyScanArgs.Builder.limit(DROP_PAGE)
                .match(glob("kvgate:t{" + drop.namespace().name() + "#") + "*");
        return dropPage(connections.shared(), ScanCursor.INITIAL, tags).thenApply(done -> (Result) Result.DONE)
                .exceptionally(error -> RedisBackend.failure(error, false));
    }

    private CompletionStage<Void> dropPage(RedisConnections.Channel channel, ScanCursor cursor, KeyScanArgs tags) {
        return channel.commands().scan(cursor, tags).thenCompose(page -> {
            List<CompletableFuture<Long>> deleted = new ArrayList<>(page.getKeys().size());
            for (byte[] key : page.getKeys()) {
                deleted.add(channel.commands().del(key).toCompletableFuture());
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(deleted.toArray(CompletableFuture[]::new));
            return page.isFinished() ? all : all.thenCompose(done -> dropPage(channel, page, tags));
        });
    }

    /** {@code text} matched literally by a SCAN pattern. */
    private static String glob(String text) {
        StringBuilder literal = new StringBuilder(text.length() + 4);
        for (char c : text.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                literal.append('\\');
            }
            literal.append(c);
        }
        return literal.toString();
    }

    CompletionStage<Result> taggedKeys(RedisConnections.Channel channel, Operation.TaggedKeys query) {
        return channel.commands().zrange(KeyLayout.tagKey(query.namespace(), query.tag()), 0, -1)
                .thenCompose(keys -> query.includeRemoved() ? CompletableFuture.completedFuture(keys)
                        : live(query.namespace(), keys))
                .thenApply(Result.Keys::new);
    }

    CompletionStage<Result> index(RedisConnections.Channel channel, Operation.Index index) {
        Set<String> grams = index.terms();
        if (grams.isEmpty()) {
            return CompletableFuture.completedFuture(Result.DONE);
        }
        byte[][] postings = new byte[grams.size()][];
        int i = 0;
        for (String gram : grams) {
            postings[i++] = KeyLayout.gramKey(index.namespace(), index.group(), gram);
        }
        return backend.<Long>run(channel, Script.INDEX, ScriptOutputType.INTEGER, postings, index.key())
                .thenApply(done -> Result.DONE);
    }

    CompletionStage<Result> unindex(RedisConnections.Channel channel, Operation.Unindex unindex) {
        List<CompletableFuture<Long>> removed = new ArrayList<>(unindex.terms().size());
        for (String gram : unindex.terms()) {
            removed.add(channel.commands().srem(KeyLayout.gramKey(unindex.namespace(), unindex.group(), gram),
                    unindex.key()).toCompletableFuture());
        }
        return CompletableFuture.allOf(removed.toArray(CompletableFuture[]::new)).thenApply(done -> Result.DONE);
    }

    CompletionStage<Result> search(RedisConnections.Channel channel, Operation.Search search) {
        List<byte[][]> lookups = new ArrayList<>();
        if (search.all()) {
            List<byte[]> every = new ArrayList<>();
            for (Operation.Search.Word word : search.words()) {
                every.addAll(postings(search, word));
            }
            lookups.add(every.toArray(byte[][]::new));
        } else {
            for (Operation.Search.Word word : search.words()) {
                lookups.add(postings(search, word).toArray(byte[][]::new));
            }
        }
        List<CompletableFuture<Set<byte[]>>> found = new ArrayList<>(lookups.size());
        for (byte[][] keys : lookups) {
            found.add(channel.commands().sinter(keys).toCompletableFuture());
        }
        return CompletableFuture.allOf(found.toArray(CompletableFuture[]::new)).thenCompose(done -> {
            Set<String> candidates = new LinkedHashSet<>();
            for (CompletableFuture<Set<byte[]>> keys : found) {
                keys.join().forEach(key -> candidates.add(new String(key, StandardCharsets.ISO_8859_1)));
            }
            List<byte[]> keys = new ArrayList<>(candidates.size());
            candidates.forEach(key -> keys.add(key.getBytes(StandardCharsets.ISO_8859_1)));
            return matching(search, keys);
        }).thenApply(Result.Keys::new);
    }

    private static List<byte[]> postings(Operation.Search search, Operation.Search.Word word) {
        List<byte[]> keys = new ArrayList<>();
        for (String gram : word.terms()) {
            keys.add(KeyLayout.gramKey(search.namespace(), search.group(), gram));
        }
        return keys;
    }

    /** The keys whose item is there. */
    private CompletionStage<List<byte[]>> live(Namespace namespace, List<byte[]> keys) {
        return read(namespace, keys, (key, raw) -> raw != null);
    }

    /** The keys whose current value holds the search's words. */
    private CompletionStage<List<byte[]>> matching(Operation.Search search, List<byte[]> keys) {
        return read(search.namespace(), keys, (key, raw) -> raw != null
                && search.matches(new String(StoredItem.decode(raw).value(), StandardCharsets.UTF_8)));
    }

    private interface Keep {
        boolean test(byte[] key, byte[] raw);
    }

    /** Reads the items of {@code keys} and keeps the keys {@code keep} accepts, in their order. */
    private CompletionStage<List<byte[]>> read(Namespace namespace, List<byte[]> keys, Keep keep) {
        List<CompletableFuture<byte[]>> items = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            items.add(connections.shared().commands().get(KeyLayout.itemKey(namespace, key)).toCompletableFuture());
        }
        return CompletableFuture.allOf(items.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<byte[]> kept = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                if (keep.test(keys.get(i), items.get(i).join())) {
                    kept.add(keys.get(i));
                }
            }
            return kept;
        });
    }
}
