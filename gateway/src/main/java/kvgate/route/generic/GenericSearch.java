package kvgate.route.generic;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;

/**
 * The full-text index for a backend without {@link kvgate.spi.Capability#SEARCH}: each n-gram of each index group
 * of each namespace is one key list (its postings) in namespace {@code kvgate:search}, under the key
 * {@code <namespace> 0x00 <group length, 4 bytes> <group> <gram>} (group and gram in UTF-8).
 *
 * <p>Postings are added when values are indexed, and taken off only when asked (okuyama's removeSearchIndex); a
 * search reads the current value of every candidate and
 * answers only keys whose value holds the words. So an overwritten or removed value is never a false hit, and the
 * postings of removed keys are dropped (by a CAS rewrite) when a search comes across them.
 */
public final class GenericSearch {
    static final Namespace RECORDS = new Namespace("kvgate:search");

    private final KeyLists lists;

    public GenericSearch(KeyLists lists) {
        this.lists = lists;
    }

    public CompletionStage<Result> index(Operation.Index index) {
        byte[] entry = KeyLog.added(List.of(index.key()));
        List<CompletionStage<Result>> appends = new ArrayList<>();
        for (String gram : index.terms()) {
            appends.add(lists.append(RECORDS, record(index.namespace(), index.group(), gram), entry));
        }
        return KeyLists.allDone(appends);
    }

    public CompletionStage<Result> unindex(Operation.Unindex unindex) {
        byte[] entry = KeyLog.removed(List.of(unindex.key()));
        List<CompletionStage<Result>> appends = new ArrayList<>();
        for (String gram : unindex.terms()) {
            appends.add(lists.append(RECORDS, record(unindex.namespace(), unindex.group(), gram), entry));
        }
        return KeyLists.allDone(appends);
    }

    public CompletionStage<Result> search(Operation.Search search) {
        // Each distinct gram is read once; each word keeps the positions of its grams among the reads.
        Map<String, Integer> gramIndex = new LinkedHashMap<>();
        List<byte[]> records = new ArrayList<>();
        List<List<Integer>> wordGrams = new ArrayList<>();
        for (Operation.Search.Word word : search.words()) {
            List<Integer> positions = new ArrayList<>();
            for (String gram : word.terms()) {
                positions.add(gramIndex.computeIfAbsent(gram, unseen -> {
                    records.add(record(search.namespace(), search.group(), unseen));
                    return records.size() - 1;
                }));
            }
            wordGrams.add(positions);
        }
        return lists.read(RECORDS, records).thenCompose(postings -> {
            Set<String> candidates = null;
            for (List<Integer> positions : wordGrams) {
                Set<String> forWord = null;
                for (int position : positions) {
                    Set<String> keys = postings.get(position).replay().keys();
                    forWord = forWord == null ? new LinkedHashSet<>(keys) : retain(forWord, keys);
                }
                if (candidates == null) {
                    candidates = forWord;
                } else if (search.all()) {
                    candidates = retain(candidates, forWord);
                } else {
                    candidates.addAll(forWord);
                }
            }
            return verify(search, postings, new ArrayList<>(candidates));
        }).exceptionally(KeyLists.Failed::of);
    }

    /** Keeps the candidates whose current value holds the words; drops the postings of removed keys. */
    private CompletionStage<Result> verify(Operation.Search search, List<KeyLists.Listed> postings,
                                           List<String> candidates) {
        if (candidates.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Keys(List.of()));
        }
        List<byte[]> keys = KeyLog.Replay.bytes(candidates);
        return lists.items(search.namespace(), keys).thenApply(items -> {
            List<byte[]> hits = new ArrayList<>();
            Set<String> removed = new HashSet<>();
            for (int i = 0; i < keys.size(); i++) {
                Item item = items.get(i);
                if (item == null) {
                    removed.add(candidates.get(i));
                } else if (search.matches(new String(item.value(), StandardCharsets.UTF_8))) {
                    hits.add(keys.get(i));
                }
            }
            lists.prune(postings, removed);
            return new Result.Keys(hits);
        });
    }

    private static Set<String> retain(Set<String> kept, Set<String> other) {
        kept.retainAll(other);
        return kept;
    }

    /** The group's length first, so that no two (group, gram) pairs share a record whatever bytes they hold. */
    private static byte[] record(Namespace namespace, String group, String gram) {
        byte[] groupBytes = group.getBytes(StandardCharsets.UTF_8);
        byte[] gramBytes = gram.getBytes(StandardCharsets.UTF_8);
        return KeyLists.record(namespace, ByteBuffer.allocate(4 + groupBytes.length + gramBytes.length)
                .putInt(groupBytes.length).put(groupBytes).put(gramBytes).array());
    }
}
