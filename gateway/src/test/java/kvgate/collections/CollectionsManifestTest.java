package kvgate.collections;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import kvgate.spi.Namespace;
import org.junit.jupiter.api.Test;

/** The manifest model: the initial manifest, lookups, namespaces, dropped collections and succession. */
class CollectionsManifestTest {
    private static final String BUCKET = "default";

    /** JSON written with single quotes, for readability. */
    private static String j(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    /** Parses {@code json} as the first manifest of the bucket: every collection is new. */
    private static CollectionsManifest first(String json) throws ManifestRejected {
        return ManifestParser.parse(BUCKET, json.getBytes(StandardCharsets.UTF_8), ManifestLimits.NONE,
                (id, uid) -> CollectionsManifest.namespaceOf(BUCKET, id, uid));
    }

    /** Parses {@code json} as a successor of {@code previous}: a kept collection id keeps its namespace. */
    private static CollectionsManifest after(CollectionsManifest previous, String json) throws ManifestRejected {
        return ManifestParser.parse(BUCKET, json.getBytes(StandardCharsets.UTF_8), ManifestLimits.NONE,
                (id, uid) -> {
                    CollectionsManifest.Collection kept = previous.collection(id);
                    return kept != null ? kept.namespace() : CollectionsManifest.namespaceOf(BUCKET, id, uid);
                });
    }

    private static void cannotApply(CollectionsManifest next, CollectionsManifest previous) {
        ManifestRejected rejected = assertThrows(ManifestRejected.class, () -> next.checkSucceeds(previous));
        assertEquals(ManifestRejected.Reason.CANNOT_APPLY, rejected.reason());
    }

    private static void uidBehind(CollectionsManifest next, CollectionsManifest previous) {
        ManifestRejected rejected = assertThrows(ManifestRejected.class, () -> next.checkSucceeds(previous));
        assertEquals(ManifestRejected.Reason.UID_BEHIND, rejected.reason());
    }

    /** uid 10: the default scope with _default and c (8, maxTTL 60), scope s (9) with d (a) and e (b). */
    private static final String BASE = j("{'uid':'10','scopes':["
            + "{'name':'_default','uid':'0','collections':[{'name':'_default','uid':'0'},"
            + "{'name':'c','uid':'8','maxTTL':60}]},"
            + "{'name':'s','uid':'9','collections':[{'name':'d','uid':'a'},{'name':'e','uid':'b'}]}]}");

    private static String base(String uid) {
        return BASE.replace("\"uid\":\"10\"", "\"uid\":\"" + uid + "\"");
    }

    // --- the initial manifest ------------------------------------------------------------------------------------

    @Test
    void theInitialManifestHasUidZeroAndTheDefaultScopeAndCollection() {
        CollectionsManifest initial = CollectionsManifest.initial(BUCKET);
        assertEquals(BUCKET, initial.bucket());
        assertEquals(0, initial.uid());
        assertEquals("0", initial.uidHex());
        assertEquals(1, initial.scopes().size());
        CollectionsManifest.Scope scope = initial.scope("_default");
        assertNotNull(scope);
        assertEquals(0, scope.id());
        assertEquals(1, scope.collections().size());
        CollectionsManifest.Collection collection = scope.collection("_default");
        assertNotNull(collection);
        assertEquals(0, collection.id());
        assertEquals(0, collection.scopeId());
        assertEquals(0, collection.maxTtlSeconds());
        assertEquals(collection, initial.collection(0));
    }

    @Test
    void theDefaultBucketsDefaultCollectionIsTheDefaultNamespace() {
        assertEquals(Namespace.DEFAULT, CollectionsManifest.initial("default").collection(0).namespace());
        assertEquals(List.of(Namespace.DEFAULT), CollectionsManifest.initial("default").namespaces());
    }

    @Test
    void anotherBucketsDefaultCollectionIsNamedAfterTheBucket() {
        CollectionsManifest initial = CollectionsManifest.initial("travel-sample");
        assertEquals(new Namespace("travel-sample"), initial.collection(0).namespace());
        assertEquals("travel-sample", initial.bucket());
    }

    @Test
    void theInitialManifestsJsonIsAValidManifestOfTheSameDefinition() throws ManifestRejected {
        CollectionsManifest initial = CollectionsManifest.initial(BUCKET);
        CollectionsManifest parsed = first(initial.json());
        assertEquals(0, parsed.uid());
        assertEquals(initial.collection(0), parsed.collection(0));
        assertDoesNotThrow(() -> parsed.checkSucceeds(initial));
    }

    // --- namespaces ----------------------------------------------------------------------------------------------

    @Test
    void namespaceOfTheOriginalDefaultCollectionIsTheBucketName() {
        assertEquals(new Namespace("default"), CollectionsManifest.namespaceOf("default", 0, 0));
        assertEquals(new Namespace("beer"), CollectionsManifest.namespaceOf("beer", 0, 0));
    }

    @Test
    void namespaceOfOtherCollectionsCarriesIdAndFirstUidInHex() {
        assertEquals(new Namespace("default/1c:a2"), CollectionsManifest.namespaceOf("default", 0x1c, 0xa2));
        assertEquals(new Namespace("beer/ffffffff:ffffffffffffffff"),
                CollectionsManifest.namespaceOf("beer", 0xffffffffL, -1L));
        // A default collection defined again after it was dropped is a new collection.
        assertEquals(new Namespace("beer/0:5"), CollectionsManifest.namespaceOf("beer", 0, 5));
    }

    @Test
    void namespacesDifferForEveryIdAndUid() {
        HashSet<Namespace> seen = new HashSet<>();
        for (long id : new long[] {0, 8, 9, 0x1c, 0x81}) {
            for (long uid : new long[] {0, 1, 0x1c, 0xa2, 0x18}) {
                assertTrue(seen.add(CollectionsManifest.namespaceOf("default", id, uid)),
                        () -> "namespace of " + id + " at " + uid + " repeats");
                assertTrue(seen.add(CollectionsManifest.namespaceOf("other", id, uid)));
            }
        }
    }

    // --- lookups -------------------------------------------------------------------------------------------------

    @Test
    void collectionFindsEveryCollectionOfEveryScopeById() throws ManifestRejected {
        CollectionsManifest manifest = first(BASE);
        assertEquals("_default", manifest.collection(0).name());
        assertEquals("c", manifest.collection(8).name());
        assertEquals(60, manifest.collection(8).maxTtlSeconds());
        assertEquals("d", manifest.collection(0xa).name());
        assertEquals(9, manifest.collection(0xa).scopeId());
        assertEquals("e", manifest.collection(0xb).name());
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 0xb, 0x10), manifest.collection(0xb).namespace());
        assertNull(manifest.collection(9), "a scope id is not a collection id");
        assertNull(manifest.collection(0xc));
        assertNull(manifest.collection(-1));
    }

    @Test
    void aManifestWithoutTheDefaultCollectionHasNoCollectionZero() throws ManifestRejected {
        CollectionsManifest manifest = first("{\"uid\":\"2\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                + "\"collections\":[{\"name\":\"c\",\"uid\":\"8\"}]}]}");
        assertNull(manifest.collection(0), "the default collection was dropped");
        assertEquals("c", manifest.collection(8).name());
    }

    @Test
    void scopeFindsScopesByName() throws ManifestRejected {
        CollectionsManifest manifest = first(BASE);
        assertEquals(0, manifest.scope("_default").id());
        assertEquals(9, manifest.scope("s").id());
        assertEquals(List.of("d", "e"), manifest.scope("s").collections().stream()
                .map(CollectionsManifest.Collection::name).toList());
        assertNotNull(manifest.scope("s").collection("e"));
        assertNull(manifest.scope("s").collection("c"), "c is in the default scope");
        assertNull(manifest.scope("S"));
        assertNull(manifest.scope("d"), "a collection name is not a scope name");
        assertNull(manifest.scope(""));
    }

    @Test
    void namespacesListsEveryCollection() throws ManifestRejected {
        CollectionsManifest manifest = first(BASE);
        assertEquals(new HashSet<>(List.of(
                        CollectionsManifest.namespaceOf(BUCKET, 0, 0x10),
                        CollectionsManifest.namespaceOf(BUCKET, 8, 0x10),
                        CollectionsManifest.namespaceOf(BUCKET, 0xa, 0x10),
                        CollectionsManifest.namespaceOf(BUCKET, 0xb, 0x10))),
                new HashSet<>(manifest.namespaces()));
        assertEquals(4, manifest.namespaces().size());
    }

    @Test
    void scopesAndCollectionsCannotBeModified() throws ManifestRejected {
        CollectionsManifest manifest = first(BASE);
        assertThrows(UnsupportedOperationException.class, () -> manifest.scopes().clear());
        assertThrows(UnsupportedOperationException.class,
                () -> manifest.scope("s").collections().clear());
    }

    // --- dropped collections -------------------------------------------------------------------------------------

    @Test
    void droppedSinceListsTheNamespacesOfDroppedCollections() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        CollectionsManifest next = after(previous, j("{'uid':'11','scopes':["
                + "{'name':'_default','uid':'0','collections':[{'name':'_default','uid':'0'}]},"
                + "{'name':'s','uid':'9','collections':[{'name':'e','uid':'b'}]}]}"));
        assertEquals(new HashSet<>(List.of(previous.collection(8).namespace(), previous.collection(0xa).namespace())),
                new HashSet<>(next.droppedSince(previous)));
        assertEquals(2, next.droppedSince(previous).size());
    }

    @Test
    void droppedSinceListsEveryCollectionOfADroppedScope() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        CollectionsManifest next = after(previous, j("{'uid':'11','scopes':[{'name':'_default','uid':'0',"
                + "'collections':[{'name':'_default','uid':'0'},{'name':'c','uid':'8'}]}]}"));
        assertEquals(new HashSet<>(List.of(previous.collection(0xa).namespace(), previous.collection(0xb).namespace())),
                new HashSet<>(next.droppedSince(previous)));
    }

    @Test
    void droppedSinceIsEmptyWhenEveryCollectionIsKept() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        CollectionsManifest next = after(previous, base("20").replace("\"uid\":\"b\"}]}]}",
                "\"uid\":\"b\"},{\"name\":\"f\",\"uid\":\"c\"}]}]}"));
        assertNotNull(next.collection(0xc));
        assertEquals(List.of(), next.droppedSince(previous));
        assertEquals(List.of(), previous.droppedSince(previous));
    }

    @Test
    void droppedSinceIncludesTheOriginalDefaultCollection() throws ManifestRejected {
        CollectionsManifest initial = CollectionsManifest.initial("default");
        CollectionsManifest next = after(initial, j("{'uid':'1','scopes':[{'name':'_default','uid':'0'}]}"));
        assertEquals(List.of(Namespace.DEFAULT), next.droppedSince(initial));
    }

    @Test
    void aCollectionDroppedAndDefinedAgainHasANewNamespace() throws ManifestRejected {
        CollectionsManifest one = first(BASE);
        CollectionsManifest two = after(one, j("{'uid':'11','scopes':[{'name':'_default','uid':'0',"
                + "'collections':[{'name':'_default','uid':'0'}]},{'name':'s','uid':'9','collections':["
                + "{'name':'d','uid':'a'},{'name':'e','uid':'b'}]}]}"));
        CollectionsManifest three = after(two, base("12"));
        assertNotEquals(one.collection(8).namespace(), three.collection(8).namespace());
        assertEquals(List.of(), three.droppedSince(two));
        assertEquals(List.of(one.collection(8).namespace()), three.droppedSince(one));
        assertEquals(one.collection(0xa).namespace(), three.collection(0xa).namespace());
    }

    // --- succession ----------------------------------------------------------------------------------------------

    @Test
    void lowerUidIsUidBehind() throws ManifestRejected {
        CollectionsManifest previous = first(base("10"));
        uidBehind(after(previous, base("f")), previous);
        uidBehind(after(previous, base("1")), previous);
        uidBehind(after(previous, base("0")), previous);
    }

    @Test
    void uidsCompareAsUnsigned64BitNumbers() throws ManifestRejected {
        CollectionsManifest top = first(base("ffffffffffffffff"));
        uidBehind(after(top, base("8000000000000000")), top);
        uidBehind(after(top, base("7fffffffffffffff")), top);
        CollectionsManifest low = first(base("7fffffffffffffff"));
        assertDoesNotThrow(() -> after(low, base("8000000000000000")).checkSucceeds(low));
        assertDoesNotThrow(() -> after(low, base("ffffffffffffffff")).checkSucceeds(low));
    }

    @Test
    void lowerUidIsUidBehindEvenWithTheSameDefinition() throws ManifestRejected {
        CollectionsManifest previous = first(base("10"));
        uidBehind(after(previous, base("0f")), previous);
    }

    @Test
    void equalUidWithTheSameDefinitionSucceeds() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        assertDoesNotThrow(() -> after(previous, BASE).checkSucceeds(previous));
        // Same definition in other words: uppercase hex, other order, other spacing, unknown keys.
        String reworded = j("{ 'scopes':["
                + "{'uid':'9','name':'s','collections':[{'name':'e','uid':'B'},{'uid':'A','name':'d'}]},"
                + "{'name':'_default','uid':'0','x':1,'collections':[{'name':'c','uid':'8','max_ttl':60},"
                + "{'name':'_default','uid':'0'}]}], 'uid':'10' }");
        assertDoesNotThrow(() -> after(previous, reworded).checkSucceeds(previous));
    }

    @Test
    void equalUidWithAnotherDefinitionCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        // An added collection.
        cannotApply(after(previous, BASE.replace("{\"name\":\"e\",\"uid\":\"b\"}",
                "{\"name\":\"e\",\"uid\":\"b\"},{\"name\":\"f\",\"uid\":\"c\"}")), previous);
        // A dropped collection.
        cannotApply(after(previous, BASE.replace(",{\"name\":\"e\",\"uid\":\"b\"}", "")), previous);
        // Another maxTTL.
        cannotApply(after(previous, BASE.replace("\"maxTTL\":60", "\"maxTTL\":61")), previous);
        cannotApply(after(previous, BASE.replace(",\"maxTTL\":60", "")), previous);
        // A renamed collection.
        cannotApply(after(previous, BASE.replace("\"name\":\"d\"", "\"name\":\"dd\"")), previous);
        // A renamed scope.
        cannotApply(after(previous, BASE.replace("\"name\":\"s\"", "\"name\":\"t\"")), previous);
        // An added empty scope.
        cannotApply(after(previous, BASE.replace("]}]}", "]},{\"name\":\"t\",\"uid\":\"20\"}]}")), previous);
        // A scope dropped with its collections.
        cannotApply(after(previous, j("{'uid':'10','scopes':[{'name':'_default','uid':'0','collections':["
                + "{'name':'_default','uid':'0'},{'name':'c','uid':'8','maxTTL':60}]}]}")), previous);
    }

    @Test
    void equalUidWithTheSameCollectionsButAnotherScopeIdCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(j("{'uid':'5','scopes':[{'name':'_default','uid':'0'},"
                + "{'name':'s','uid':'9'}]}"));
        cannotApply(after(previous, j("{'uid':'5','scopes':[{'name':'_default','uid':'0'},"
                + "{'name':'s','uid':'a'}]}")), previous);
    }

    @Test
    void higherUidRenamingAKeptCollectionIdCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        cannotApply(after(previous, base("11").replace("\"name\":\"c\"", "\"name\":\"cc\"")), previous);
        cannotApply(after(previous, base("11").replace("\"name\":\"d\"", "\"name\":\"e2\"")), previous);
    }

    @Test
    void higherUidSwappingTheNamesOfTwoCollectionsCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        String swapped = base("11").replace("{\"name\":\"d\",\"uid\":\"a\"},{\"name\":\"e\",\"uid\":\"b\"}",
                "{\"name\":\"e\",\"uid\":\"a\"},{\"name\":\"d\",\"uid\":\"b\"}");
        cannotApply(after(previous, swapped), previous);
    }

    @Test
    void higherUidMovingACollectionToAnotherScopeCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        String moved = j("{'uid':'11','scopes':["
                + "{'name':'_default','uid':'0','collections':[{'name':'_default','uid':'0'}]},"
                + "{'name':'s','uid':'9','collections':[{'name':'c','uid':'8','maxTTL':60},"
                + "{'name':'d','uid':'a'},{'name':'e','uid':'b'}]}]}");
        cannotApply(after(previous, moved), previous);
        String movedToANewScope = j("{'uid':'11','scopes':["
                + "{'name':'_default','uid':'0','collections':[{'name':'_default','uid':'0'},"
                + "{'name':'c','uid':'8','maxTTL':60}]},"
                + "{'name':'s','uid':'9','collections':[{'name':'d','uid':'a'}]},"
                + "{'name':'t','uid':'20','collections':[{'name':'e','uid':'b'}]}]}");
        cannotApply(after(previous, movedToANewScope), previous);
    }

    @Test
    void higherUidRenamingAKeptScopeIdCannotApply() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        cannotApply(after(previous, base("11").replace("\"name\":\"s\"", "\"name\":\"t\"")), previous);
        CollectionsManifest empty = first(j("{'uid':'5','scopes':[{'name':'_default','uid':'0'},"
                + "{'name':'s','uid':'9'}]}"));
        cannotApply(after(empty, j("{'uid':'6','scopes':[{'name':'_default','uid':'0'},"
                + "{'name':'t','uid':'9'}]}")), empty);
    }

    @Test
    void higherUidAddingCollectionsAndScopesSucceeds() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        String added = base("11").replace("]}]}", ",{\"name\":\"f\",\"uid\":\"c\"}]},"
                + "{\"name\":\"t\",\"uid\":\"20\",\"collections\":[{\"name\":\"g\",\"uid\":\"21\"}]}]}");
        CollectionsManifest next = after(previous, added);
        assertNotNull(next.collection(0x21));
        assertDoesNotThrow(() -> next.checkSucceeds(previous));
    }

    @Test
    void higherUidDroppingCollectionsAndScopesSucceeds() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        CollectionsManifest next = after(previous, j("{'uid':'11','scopes':[{'name':'_default','uid':'0'}]}"));
        assertDoesNotThrow(() -> next.checkSucceeds(previous));
    }

    @Test
    void higherUidChangingMaxTtlSucceeds() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        CollectionsManifest next = after(previous, base("11").replace("\"maxTTL\":60", "\"maxTTL\":3600"));
        assertEquals(3600, next.collection(8).maxTtlSeconds());
        assertDoesNotThrow(() -> next.checkSucceeds(previous));
        CollectionsManifest cleared = after(previous, base("11").replace(",\"maxTTL\":60", ""));
        assertDoesNotThrow(() -> cleared.checkSucceeds(previous));
    }

    @Test
    void higherUidDefiningADroppedNameAgainWithANewIdSucceeds() throws ManifestRejected {
        CollectionsManifest previous = first(BASE);
        String recreated = base("11").replace("{\"name\":\"c\",\"uid\":\"8\",\"maxTTL\":60}",
                "{\"name\":\"c\",\"uid\":\"30\"}")
                .replace("{\"name\":\"s\",\"uid\":\"9\"", "{\"name\":\"s\",\"uid\":\"31\"")
                .replace("\"uid\":\"a\"", "\"uid\":\"32\"").replace("\"uid\":\"b\"", "\"uid\":\"33\"");
        CollectionsManifest next = after(previous, recreated);
        assertEquals(0x31, next.scope("s").id());
        assertEquals(0x31, next.scope("s").collection("d").scopeId());
        assertDoesNotThrow(() -> next.checkSucceeds(previous));
        assertTrue(next.droppedSince(previous).contains(previous.collection(8).namespace()));
    }

    @Test
    void theFirstManifestSucceedsTheInitialOne() throws ManifestRejected {
        CollectionsManifest initial = CollectionsManifest.initial(BUCKET);
        CollectionsManifest next = after(initial, BASE);
        assertDoesNotThrow(() -> next.checkSucceeds(initial));
        assertEquals(Namespace.DEFAULT, next.collection(0).namespace());
    }

    @Test
    void uidZeroWithAnotherDefinitionThanTheInitialCannotApply() throws ManifestRejected {
        CollectionsManifest initial = CollectionsManifest.initial(BUCKET);
        cannotApply(after(initial, base("0")), initial);
    }
}
