package kvgate.route.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.okuyama.NGrams;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Tags, the full-text index and namespace scans, as every backend must offer them: natively or through the
 * dispatcher's generic layer over get, append, add and CAS. One suite, run against each backend by a subclass that
 * starts {@link #gateway} (and {@link #second}, a second gateway on the same backend where the backend is shared).
 */
abstract class GenericLayerSuite {
    static TestGateway gateway;
    /** A second gateway process-alike on the same backend, or null where the backend is not shared. */
    static TestGateway second;
    private static final AtomicInteger UNIQUE = new AtomicInteger();

    @AfterAll
    static void stopGateways() {
        if (second != null) {
            second.close();
            second = null;
        }
        if (gateway != null) {
            gateway.close();
            gateway = null;
        }
    }

    /** A namespace no other test uses, so tests share one gateway without seeing each other's data. */
    static Namespace fresh() {
        return new Namespace("suite-" + UNIQUE.incrementAndGet());
    }

    static Result run(TestGateway on, Operation operation) throws Exception {
        return on.gateway().dispatcher().dispatch(operation).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static Result run(Operation operation) throws Exception {
        return run(gateway, operation);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static void set(Namespace namespace, String key, String value) throws Exception {
        assertEquals(Status.OK, run(new Operation.Store(namespace, bytes(key), StoreMode.SET, bytes(value), 0,
                Item.NEVER, 0)).status());
    }

    static List<String> keys(Result result) {
        List<String> keys = new ArrayList<>();
        for (byte[] key : assertInstanceOf(Result.Keys.class, result, result.toString()).keys()) {
            keys.add(new String(key, StandardCharsets.UTF_8));
        }
        return keys;
    }

    static List<String> tagged(TestGateway on, Namespace namespace, String tag, boolean includeRemoved)
            throws Exception {
        return keys(run(on, new Operation.TaggedKeys(namespace, bytes(tag), includeRemoved)));
    }

    static Result tag(TestGateway on, Namespace namespace, String key, String... tags) throws Exception {
        List<byte[]> names = new ArrayList<>();
        for (String tag : tags) {
            names.add(bytes(tag));
        }
        return run(on, new Operation.Tag(namespace, bytes(key), names));
    }

    static void setIndexed(Namespace namespace, String key, String value, String group) throws Exception {
        set(namespace, key, value);
        assertEquals(Status.OK, run(new Operation.Index(namespace, bytes(key), NGrams.of(value, 1, 3), group))
                .status());
    }

    static Set<String> search(Namespace namespace, boolean all, String group, int n, String... words)
            throws Exception {
        List<Operation.Search.Word> looked = new ArrayList<>();
        for (String word : words) {
            looked.add(new Operation.Search.Word(word, NGrams.lookup(word, n)));
        }
        return new HashSet<>(keys(run(new Operation.Search(namespace, looked, all, group))));
    }

    // --- tags ---

    @Test
    void tagListsItsKeysOnceInTheOrderTheyWereFirstTagged() throws Exception {
        Namespace ns = fresh();
        for (String key : List.of("k1", "k2", "k3")) {
            set(ns, key, "v");
        }
        assertEquals(Status.OK, tag(gateway, ns, "k2", "red", "blue").status());
        assertEquals(Status.OK, tag(gateway, ns, "k1", "red").status());
        assertEquals(Status.OK, tag(gateway, ns, "k2", "red").status());
        assertEquals(Status.OK, tag(gateway, ns, "k3", "blue").status());
        assertEquals(List.of("k2", "k1"), tagged(gateway, ns, "red", true));
        assertEquals(List.of("k2", "k3"), tagged(gateway, ns, "blue", false));
        assertEquals(List.of(), tagged(gateway, ns, "green", true));
        assertEquals(List.of(), tagged(gateway, fresh(), "red", true), "tags belong to their namespace");
    }

    @Test
    void removedKeysAreListedOnlyWhenAskedFor() throws Exception {
        Namespace ns = fresh();
        set(ns, "kept", "v");
        set(ns, "removed", "v");
        tag(gateway, ns, "kept", "t");
        tag(gateway, ns, "removed", "t");
        tag(gateway, ns, "never-stored", "t");
        assertEquals(Status.OK, run(new Operation.Delete(ns, bytes("removed"), 0)).status());
        assertEquals(List.of("kept", "removed", "never-stored"), tagged(gateway, ns, "t", true));
        assertEquals(List.of("kept"), tagged(gateway, ns, "t", false));
    }

    @Test
    void untagTakesOneKeyOffOneTag() throws Exception {
        Namespace ns = fresh();
        set(ns, "a", "v");
        set(ns, "b", "v");
        tag(gateway, ns, "a", "t", "u");
        tag(gateway, ns, "b", "t");
        assertEquals(Status.OK, run(new Operation.Untag(ns, bytes("a"), bytes("t"))).status());
        assertEquals(Status.NOT_FOUND, run(new Operation.Untag(ns, bytes("a"), bytes("t"))).status());
        assertEquals(Status.NOT_FOUND, run(new Operation.Untag(ns, bytes("a"), bytes("unknown"))).status());
        assertEquals(List.of("b"), tagged(gateway, ns, "t", true));
        assertEquals(List.of("a"), tagged(gateway, ns, "u", true), "other tags of the key are untouched");
        tag(gateway, ns, "a", "t");
        assertEquals(List.of("b", "a"), tagged(gateway, ns, "t", true), "a key tagged again goes to the end");
    }

    @Test
    void manyUntagsAndTagsStayCorrectThroughCompaction() throws Exception {
        Namespace ns = fresh();
        for (int round = 0; round < 40; round++) {
            tag(gateway, ns, "churn-" + (round % 4), "t");
            run(new Operation.Untag(ns, bytes("churn-" + (round % 4)), bytes("t")));
            tagged(gateway, ns, "t", true); // a read of a wasteful list rewrites it compactly
        }
        tag(gateway, ns, "last", "t");
        assertEquals(List.of("last"), tagged(gateway, ns, "t", true));
    }

    @Test
    void concurrentTaggersLoseNoKey() throws Exception {
        Namespace ns = fresh();
        int threads = 8;
        int perThread = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                // Half the threads go through the second gateway where there is one: two gateways, one backend.
                TestGateway through = second != null && thread % 2 == 1 ? second : gateway;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        String key = "t" + thread + "-" + i;
                        assertEquals(Status.OK, tag(through, ns, key, "shared", "also-shared").status());
                        if (i % 5 == 0) {
                            assertEquals(Status.OK, run(through, new Operation.Untag(ns, bytes(key),
                                    bytes("also-shared"))).status());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * perThread, new HashSet<>(tagged(gateway, ns, "shared", true)).size());
        assertEquals(threads * perThread * 4 / 5, new HashSet<>(tagged(gateway, ns, "also-shared", true)).size());
    }

    // --- search ---

    @Test
    void searchFindsValuesHoldingAllOrAnyOfTheWords() throws Exception {
        Namespace ns = fresh();
        setIndexed(ns, "fox", "the quick brown fox", "");
        setIndexed(ns, "dog", "the lazy brown dog", "");
        setIndexed(ns, "cat", "a sleepy cat", "");
        assertEquals(Set.of("fox", "dog"), search(ns, true, "", 3, "brown"));
        assertEquals(Set.of("fox"), search(ns, true, "", 3, "brown", "quick"));
        assertEquals(Set.of("fox", "cat"), search(ns, false, "", 3, "quick", "cat"));
        assertEquals(Set.of(), search(ns, true, "", 3, "purple"));
        assertEquals(Set.of("cat"), search(ns, true, "", 3, "ca"), "a word shorter than n is looked up whole");
        // "own do" has the grams of both values but is in one only: hits are checked against the value itself.
        assertEquals(Set.of("dog"), search(ns, true, "", 3, "own do"));
    }

    @Test
    void searchReadsTextAsUnicodeCharacters() throws Exception {
        Namespace ns = fresh();
        setIndexed(ns, "tokyo", "東京都の天気は晴れ", "");
        setIndexed(ns, "osaka", "大阪府の天気は雨", "");
        assertEquals(Set.of("tokyo", "osaka"), search(ns, true, "", 2, "天気"));
        assertEquals(Set.of("tokyo"), search(ns, true, "", 2, "晴れ", "天気"));
        assertEquals(Set.of("osaka"), search(ns, true, "", 1, "雨"));
    }

    @Test
    void overwrittenAndRemovedValuesAreNotFound() throws Exception {
        Namespace ns = fresh();
        setIndexed(ns, "a", "apple pie", "");
        setIndexed(ns, "b", "apple tart", "");
        set(ns, "a", "cherry pie");
        assertEquals(Status.OK, run(new Operation.Delete(ns, bytes("b"), 0)).status());
        assertEquals(Set.of(), search(ns, true, "", 3, "apple"));
        setIndexed(ns, "b", "apple crumble", "");
        assertEquals(Set.of("b"), search(ns, true, "", 3, "apple"), "a key stored again is found again");
    }

    @Test
    void indexGroupsAreSeparate() throws Exception {
        Namespace ns = fresh();
        setIndexed(ns, "news", "election results", "news");
        setIndexed(ns, "sport", "election of the team captain", "sport");
        assertEquals(Set.of("news"), search(ns, true, "news", 3, "election"));
        assertEquals(Set.of("sport"), search(ns, true, "sport", 3, "election"));
        assertEquals(Set.of(), search(ns, true, "", 3, "election"));
    }

    // --- scans ---

    @Test
    void scanListsTheLiveItemsOfANamespace() throws Exception {
        Namespace ns = fresh();
        for (int i = 0; i < 50; i++) {
            set(ns, "item-" + i, "value-" + i);
        }
        assertEquals(Status.OK, run(new Operation.Arithmetic(ns, bytes("counter"), true, 5, 7, true, Item.NEVER, 0))
                .status());
        assertEquals(Status.OK, run(new Operation.Delete(ns, bytes("item-0"), 0)).status());
        set(ns, "item-1", "overwritten");
        set(fresh(), "elsewhere", "x");
        Result.Entries entries = assertInstanceOf(Result.Entries.class, run(new Operation.Scan(ns, 1000)));
        Map<String, String> found = new HashMap<>();
        for (Result.Entry entry : entries.entries()) {
            found.put(new String(entry.key(), StandardCharsets.UTF_8),
                    new String(entry.item().value(), StandardCharsets.UTF_8));
        }
        assertEquals(50, found.size(), found.keySet().toString());
        assertEquals("overwritten", found.get("item-1"));
        assertEquals("7", found.get("counter"));
        assertEquals("value-49", found.get("item-49"));
        assertEquals(Status.TOO_LARGE, run(new Operation.Scan(ns, 10)).status());
        assertEquals(new Result.Entries(List.of()), run(new Operation.Scan(fresh(), 10)));
    }

    @Test
    void scanSeesWritesOfEveryGatewayOnTheBackend() throws Exception {
        Namespace ns = fresh();
        TestGateway other = second != null ? second : gateway;
        set(ns, "here", "1");
        assertEquals(Status.OK, run(other, new Operation.Store(ns, bytes("there"), StoreMode.SET, bytes("2"), 0,
                Item.NEVER, 0)).status());
        Set<String> keys = new HashSet<>();
        for (Result.Entry entry : ((Result.Entries) run(new Operation.Scan(ns, 10))).entries()) {
            keys.add(new String(entry.key(), StandardCharsets.UTF_8));
        }
        assertEquals(Set.of("here", "there"), keys);
    }

    @Test
    void concurrentWritersAllAppearInTheScan() throws Exception {
        Namespace ns = fresh();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int thread = t;
                TestGateway through = second != null && thread % 2 == 1 ? second : gateway;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 30; i++) {
                        assertEquals(Status.OK, run(through, new Operation.Store(ns, bytes("w" + thread + "-" + i),
                                StoreMode.SET, bytes("v"), 0, Item.NEVER, 0)).status());
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(180, ((Result.Entries) run(new Operation.Scan(ns, 1000))).entries().size());
    }
}
