package kvgate.collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import kvgate.spi.Namespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Manifest reading and validation: every value rule of both collections documents, and the accepted forms. */
class ManifestParserTest {
    private static final ManifestLimits ROOMY = new ManifestLimits(100, 1000);

    /** The example of the newer document, exactly as it prints it. */
    private static final String NEWER_EXAMPLE = """
            {
              "uid": "a2",
              "scopes": [
                {
                  "name": "_default",
                  "uid": "0",
                  "collections": [
                    {
                      "name": "_default",
                      "uid": "0"
                    },
                    {
                      "name": "brewery",
                      "uid": "1c",
                      "maxTTL": 1
                    }
                  ]
                }
              ]
            }
            """;

    /** The example of the older document, which names the expiry max_ttl. */
    private static final String OLDER_EXAMPLE = NEWER_EXAMPLE.replace("\"maxTTL\"", "\"max_ttl\"");

    private static Namespace namespace(long collectionId, long manifestUid) {
        return CollectionsManifest.namespaceOf("default", collectionId, manifestUid);
    }

    private static CollectionsManifest parse(String json) throws ManifestRejected {
        return parse(json, ROOMY);
    }

    private static CollectionsManifest parse(String json, ManifestLimits limits) throws ManifestRejected {
        return ManifestParser.parse("default", json.getBytes(StandardCharsets.UTF_8), limits,
                ManifestParserTest::namespace);
    }

    private static void invalid(String json) {
        invalid(json, ROOMY);
    }

    private static void invalid(String json, ManifestLimits limits) {
        ManifestRejected rejected = assertThrows(ManifestRejected.class, () -> parse(json, limits),
                () -> "should be refused: " + json);
        assertEquals(ManifestRejected.Reason.INVALID, rejected.reason(), json);
        assertNotNull(rejected.getMessage());
        assertTrue(!rejected.getMessage().isEmpty(), "a refusal says why");
    }

    /** JSON written with single quotes, for readability. */
    private static String j(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    private static String manifest(String uid, String... scopes) {
        return j("{'uid':'" + uid + "','scopes':[" + String.join(",", scopes) + "]}");
    }

    private static String scope(String name, String uid, String... collections) {
        return j("{'name':'" + name + "','uid':'" + uid + "','collections':[" + String.join(",", collections) + "]}");
    }

    private static String collection(String name, String uid) {
        return j("{'name':'" + name + "','uid':'" + uid + "'}");
    }

    private static String defaultScope(String... collections) {
        List<String> all = new ArrayList<>();
        all.add(collection("_default", "0"));
        all.addAll(List.of(collections));
        return scope("_default", "0", all.toArray(String[]::new));
    }

    /** A valid manifest with one collection entry given as raw JSON, so its fields can be broken one by one. */
    private static String withCollection(String collectionJson) {
        return manifest("a2", defaultScope(j(collectionJson)));
    }

    /** A valid manifest with one extra scope entry given as raw JSON. */
    private static String withScope(String scopeJson) {
        return manifest("a2", defaultScope(), j(scopeJson));
    }

    // --- the accepted forms --------------------------------------------------------------------------------------

    @Test
    void parsesTheNewerDocumentsExample() throws ManifestRejected {
        CollectionsManifest manifest = parse(NEWER_EXAMPLE);
        assertEquals(0xa2, manifest.uid());
        assertEquals("a2", manifest.uidHex());
        assertEquals("default", manifest.bucket());
        assertEquals(1, manifest.scopes().size());
        CollectionsManifest.Scope scope = manifest.scope("_default");
        assertNotNull(scope);
        assertEquals(0, scope.id());
        assertEquals(List.of("_default", "brewery"), scope.collections().stream()
                .map(CollectionsManifest.Collection::name).toList());
        CollectionsManifest.Collection brewery = scope.collection("brewery");
        assertEquals(0x1c, brewery.id());
        assertEquals(0, brewery.scopeId());
        assertEquals(1, brewery.maxTtlSeconds());
        assertSame(brewery, manifest.collection(0x1c));
        assertEquals(0, manifest.collection(0).maxTtlSeconds());
    }

    @Test
    void parsesTheOlderDocumentsExampleWithMaxUnderscoreTtl() throws ManifestRejected {
        CollectionsManifest manifest = parse(OLDER_EXAMPLE);
        assertEquals(0xa2, manifest.uid());
        assertEquals(1, manifest.scope("_default").collection("brewery").maxTtlSeconds());
        assertEquals(1, manifest.collection(0x1c).maxTtlSeconds());
    }

    @Test
    void acceptsBothExpiryKeysWhenEqual() throws ManifestRejected {
        CollectionsManifest manifest = parse(withCollection("{'name':'c','uid':'8','maxTTL':60,'max_ttl':60}"));
        assertEquals(60, manifest.collection(8).maxTtlSeconds());
        assertEquals(0, parse(withCollection("{'name':'c','uid':'8','maxTTL':0,'max_ttl':0}")).collection(8)
                .maxTtlSeconds());
    }

    @Test
    void refusesBothExpiryKeysWhenDifferent() {
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':60,'max_ttl':61}"));
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':0,'max_ttl':1}"));
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':1,'max_ttl':0}"));
    }

    @Test
    void anAbsentExpiryIsZero() throws ManifestRejected {
        assertEquals(0, parse(withCollection("{'name':'c','uid':'8'}")).collection(8).maxTtlSeconds());
    }

    @Test
    void acceptsExpiriesFromZeroToTheLargestSigned32BitValue() throws ManifestRejected {
        assertEquals(0, parse(withCollection("{'name':'c','uid':'8','maxTTL':0}")).collection(8).maxTtlSeconds());
        assertEquals(Integer.MAX_VALUE, parse(withCollection("{'name':'c','uid':'8','maxTTL':2147483647}"))
                .collection(8).maxTtlSeconds());
        assertEquals(Integer.MAX_VALUE, parse(withCollection("{'name':'c','uid':'8','max_ttl':2147483647}"))
                .collection(8).maxTtlSeconds());
    }

    @Test
    void anOmittedCollectionsArrayIsAnEmptyScope() throws ManifestRejected {
        CollectionsManifest manifest = parse(j("{'uid':'1','scopes':[{'name':'_default','uid':'0'},"
                + "{'name':'s','uid':'8'}]}"));
        assertEquals(List.of(), manifest.scope("_default").collections());
        assertEquals(List.of(), manifest.scope("s").collections());
        assertNull(manifest.collection(0));
    }

    @Test
    void anEmptyCollectionsArrayIsAnEmptyScope() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("1", scope("_default", "0")));
        assertEquals(List.of(), manifest.scope("_default").collections());
    }

    @Test
    void ignoresUnknownKeysAtEveryLevel() throws ManifestRejected {
        String json = j("{'uid':'5','future':{'a':[1,2,{'b':null}]},'isEnabled':true,'scopes':["
                + "{'name':'_default','uid':'0','limits':{'kv':1},'collections':["
                + "{'name':'_default','uid':'0','history':false,'metered':1.5},"
                + "{'name':'c','uid':'8','extra':'x','maxTTL':3}]}],'tail':[]}");
        CollectionsManifest manifest = parse(json);
        assertEquals(5, manifest.uid());
        assertEquals(3, manifest.collection(8).maxTtlSeconds());
        assertEquals(2, manifest.scope("_default").collections().size());
    }

    @Test
    void acceptsUppercaseHex() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("A2", defaultScope(collection("c", "1C")),
                scope("s", "FF", collection("d", "AbCdEf"))));
        assertEquals(0xa2, manifest.uid());
        assertEquals("a2", manifest.uidHex());
        assertEquals(0x1c, manifest.scope("_default").collection("c").id());
        assertEquals(0xff, manifest.scope("s").id());
        assertEquals(0xabcdef, manifest.collection(0xabcdef).id());
        assertEquals(0xff, manifest.collection(0xabcdef).scopeId());
    }

    @Test
    void acceptsTheLargestUids() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("ffffffffffffffff", defaultScope(collection("c", "ffffffff")),
                scope("s", "fffffffe")));
        assertEquals(-1L, manifest.uid());
        assertEquals("ffffffffffffffff", manifest.uidHex());
        assertEquals(0xffffffffL, manifest.collection(0xffffffffL).id());
        assertEquals(0xfffffffeL, manifest.scope("s").id());
    }

    @Test
    void jsonIsExactlyTheInputText() throws ManifestRejected {
        assertEquals(NEWER_EXAMPLE, parse(NEWER_EXAMPLE).json());
        assertEquals(OLDER_EXAMPLE, parse(OLDER_EXAMPLE).json());
        String unusual = "\t{ \"scopes\" : [ {\"uid\":\"0\", \"name\":\"_default\", \"note\":\"caf\u00e9 \u2615\"} ],"
                + "\r\n  \"uid\" : \"A2\" }  \n";
        assertEquals(unusual, parse(unusual).json());
    }

    @Test
    void namespacesComeFromTheGivenFunctionWithCollectionIdAndManifestUid() throws ManifestRejected {
        List<List<Long>> calls = new ArrayList<>();
        CollectionsManifest manifest = ManifestParser.parse("travel", NEWER_EXAMPLE.getBytes(StandardCharsets.UTF_8),
                ROOMY, (collectionId, manifestUid) -> {
                    calls.add(List.of(collectionId, manifestUid));
                    return new Namespace("ns-" + collectionId + "-" + manifestUid);
                });
        assertEquals(List.of(List.of(0L, 0xa2L), List.of(0x1cL, 0xa2L)), calls);
        assertEquals(new Namespace("ns-0-162"), manifest.collection(0).namespace());
        assertEquals(new Namespace("ns-28-162"), manifest.collection(0x1c).namespace());
        assertEquals("travel", manifest.bucket());
    }

    @Test
    void keepsScopesInManifestOrder() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", scope("b", "9"), defaultScope(), scope("a", "8")));
        assertEquals(List.of("b", "_default", "a"), manifest.scopes().stream()
                .map(CollectionsManifest.Scope::name).toList());
    }

    @Test
    void acceptsLongAndSystemNames() throws ManifestRejected {
        String longName = "n".repeat(251);
        CollectionsManifest manifest = parse(manifest("9", defaultScope(collection(longName, "8")),
                scope("_system$", "9", collection("_mobile$x", "a"), collection(longName, "b"))));
        assertEquals(8, manifest.scope("_default").collection(longName).id());
        assertEquals(0xb, manifest.scope("_system$").collection(longName).id());
        assertEquals(0xa, manifest.scope("_system$").collection("_mobile$x").id());
    }

    @Test
    void acceptsTrailingWhitespace() throws ManifestRejected {
        assertEquals(0xa2, parse(NEWER_EXAMPLE + " \n\t\r\n ").uid());
    }

    @Test
    void theSameCollectionNameMayBeUsedInTwoScopes() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", defaultScope(collection("orders", "8")),
                scope("s", "9", collection("orders", "a"))));
        assertEquals(8, manifest.scope("_default").collection("orders").id());
        assertEquals(0xa, manifest.scope("s").collection("orders").id());
    }

    @Test
    void theDefaultScopeMayOmitTheDefaultCollection() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", scope("_default", "0", collection("c", "8"))));
        assertNull(manifest.collection(0));
        assertEquals(8, manifest.collection(8).id());
    }

    // --- the JSON itself -----------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "{", "}", "{\"uid\":", "not json", "{uid:\"1\",scopes:[]}",
            "{'uid':'1','scopes':[]}", "{\"uid\":\"1\" \"scopes\":[]}", "{\"uid\":\"1\",\"scopes\":[],}",
            "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"},]}", "{\"uid\":\"1\",\"scopes\":[}",
            "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]", "{\"uid\":\"1\"/*c*/,\"scopes\":[]}",
            "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_def\nault\",\"uid\":\"0\"}]}", "NaN", "\u0000"})
    void refusesInvalidJson(String text) {
        invalid(text);
    }

    @Test
    void refusesInvalidUtf8() {
        byte[] json = manifest("1", defaultScope(collection("cXc", "8"))).getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < json.length; i++) {
            if (json[i] == 'X') {
                json[i] = (byte) 0xff;
            }
        }
        ManifestRejected rejected = assertThrows(ManifestRejected.class,
                () -> ManifestParser.parse("default", json, ROOMY, ManifestParserTest::namespace));
        assertEquals(ManifestRejected.Reason.INVALID, rejected.reason());
    }

    @ParameterizedTest
    @ValueSource(strings = {" x", "x", "{}", " {}", "[]", "]", "}", "0", "\"\"", ",", "null", " // c"})
    void refusesTrailingGarbage(String garbage) {
        invalid(manifest("1", defaultScope()) + garbage);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "1", "\"a2\"", "null", "true", "1.5",
            "[{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]}]"})
    void refusesAManifestThatIsNotAnObject(String text) {
        invalid(text);
    }

    @Test
    void refusesDuplicateKeysAtEveryLevel() {
        invalid(j("{'uid':'1','uid':'1','scopes':[{'name':'_default','uid':'0'}]}"));
        invalid(j("{'uid':'1','uid':'2','scopes':[{'name':'_default','uid':'0'}]}"));
        invalid(j("{'uid':'1','scopes':[{'name':'_default','uid':'0'}],'scopes':[{'name':'_default','uid':'0'}]}"));
        invalid(j("{'uid':'1','scopes':[{'name':'_default','name':'_default','uid':'0'}]}"));
        invalid(j("{'uid':'1','scopes':[{'name':'_default','uid':'0','uid':'0'}]}"));
        invalid(j("{'uid':'1','scopes':[{'name':'_default','uid':'0','collections':[],'collections':[]}]}"));
        invalid(withCollection("{'name':'c','name':'d','uid':'8'}"));
        invalid(withCollection("{'name':'c','uid':'8','uid':'8'}"));
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':1,'maxTTL':1}"));
        invalid(withCollection("{'name':'c','uid':'8','max_ttl':1,'max_ttl':2}"));
        invalid(j("{'uid':'1','unknown':1,'unknown':2,'scopes':[{'name':'_default','uid':'0'}]}"));
    }

    // --- required keys and their types ---------------------------------------------------------------------------

    @Test
    void refusesAManifestWithoutUid() {
        invalid(j("{'scopes':[{'name':'_default','uid':'0'}]}"));
        invalid(j("{'UID':'1','scopes':[{'name':'_default','uid':'0'}]}"));
    }

    @Test
    void refusesAManifestWithoutScopes() {
        invalid(j("{'uid':'1'}"));
        invalid(j("{}"));
        invalid(j("{'uid':'1','scope':[{'name':'_default','uid':'0'}]}"));
    }

    @Test
    void refusesAScopeWithoutNameOrUid() {
        invalid(j("{'uid':'1','scopes':[{'uid':'0'}]}"));
        invalid(j("{'uid':'1','scopes':[{'name':'_default'}]}"));
        invalid(withScope("{'uid':'8'}"));
        invalid(withScope("{'name':'s'}"));
        invalid(withScope("{}"));
    }

    @Test
    void refusesACollectionWithoutNameOrUid() {
        invalid(withCollection("{'uid':'8'}"));
        invalid(withCollection("{'name':'c'}"));
        invalid(withCollection("{'name':'c','maxTTL':1}"));
        invalid(withCollection("{}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"162", "0", "1.5", "null", "true", "[\"a2\"]", "{\"uid\":\"a2\"}"})
    void refusesAManifestUidThatIsNotAString(String value) {
        invalid("{\"uid\":" + value + ",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "\"_default\"", "1", "null", "true"})
    void refusesScopesThatAreNotAnArray(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":" + value + "}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"_default\"", "0", "null", "true", "[]", "[{\"name\":\"_default\",\"uid\":\"0\"}]"})
    void refusesAScopeEntryThatIsNotAnObject(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}," + value + "]}");
        invalid("{\"uid\":\"1\",\"scopes\":[" + value + ",{\"name\":\"_default\",\"uid\":\"0\"}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "null", "true", "[\"s\"]", "{\"name\":\"s\"}"})
    void refusesANameThatIsNotAString(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"},{\"name\":" + value
                + ",\"uid\":\"8\"}]}");
        invalid(withCollection("{'name':" + value.replace('"', '\'') + ",'uid':'8'}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"8", "0", "null", "true", "[\"8\"]", "{}"})
    void refusesAScopeOrCollectionUidThatIsNotAString(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"},{\"name\":\"s\",\"uid\":" + value
                + "}]}");
        invalid(withCollection("{'name':'c','uid':" + value.replace('"', '\'') + "}"));
    }

    @Test
    void refusesTheDefaultScopeWithANumericUid() {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":0}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "\"c\"", "1", "null", "true"})
    void refusesCollectionsThatAreNotAnArray(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\",\"collections\":" + value + "}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"c\"", "8", "null", "true", "[]"})
    void refusesACollectionEntryThatIsNotAnObject(String value) {
        invalid("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\",\"collections\":[" + value + "]}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"1\"", "\"\"", "1.5", "1.0", "1e3", "-1", "-2147483648", "2147483648", "4294967295",
            "9223372036854775807", "9223372036854775808", "99999999999999999999999", "true", "null", "[1]", "{}"})
    void refusesAnExpiryThatIsNotAnIntegerFromZeroToTheLargestSigned32BitValue(String value) {
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':" + value.replace('"', '\'') + "}"));
        invalid(withCollection("{'name':'c','uid':'8','max_ttl':" + value.replace('"', '\'') + "}"));
    }

    @Test
    void refusesAnInvalidExpiryEvenWhenTheOtherKeyIsValid() {
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':1,'max_ttl':'1'}"));
        invalid(withCollection("{'name':'c','uid':'8','maxTTL':-1,'max_ttl':1}"));
    }

    // --- uids ----------------------------------------------------------------------------------------------------

    static List<String> notHex() {
        return List.of("", "g", "xyz", "1g", "a2h", " 1", "1 ", "-1", "+1", "0x1", "0X1", "0xa2", "#a2", "1.0",
                "1_0", "\uff11", "\u0661", "a\u0000", "\u00aa");
    }

    @ParameterizedTest
    @MethodSource("notHex")
    void refusesAManifestUidThatIsNotHex(String uid) {
        invalid(manifest(uid, defaultScope()));
    }

    @ParameterizedTest
    @MethodSource("notHex")
    void refusesAScopeUidThatIsNotHex(String uid) {
        invalid(manifest("1", defaultScope(), scope("s", uid)));
    }

    @ParameterizedTest
    @MethodSource("notHex")
    void refusesACollectionUidThatIsNotHex(String uid) {
        invalid(manifest("1", defaultScope(collection("c", uid))));
    }

    @Test
    void refusesAManifestUidOfMoreThan16HexDigits() throws ManifestRejected {
        invalid(manifest("10000000000000000", defaultScope()));
        invalid(manifest("00000000000000001", defaultScope()));
        invalid(manifest("fffffffffffffffff", defaultScope()));
        assertEquals(0x1000000000000000L, parse(manifest("1000000000000000", defaultScope())).uid());
    }

    @Test
    void refusesAScopeUidOfMoreThan8HexDigits() throws ManifestRejected {
        invalid(manifest("1", defaultScope(), scope("s", "100000000")));
        invalid(manifest("1", defaultScope(), scope("s", "000000008")));
        assertEquals(0x10000000L, parse(manifest("1", defaultScope(), scope("s", "10000000"))).scope("s").id());
    }

    @Test
    void refusesACollectionUidOfMoreThan8HexDigits() throws ManifestRejected {
        invalid(manifest("1", defaultScope(collection("c", "100000000"))));
        invalid(manifest("1", defaultScope(collection("c", "000000008"))));
        assertEquals(0x10000000L, parse(manifest("1", defaultScope(collection("c", "10000000")))).collection(
                0x10000000L).id());
    }

    // --- names ---------------------------------------------------------------------------------------------------

    static List<String> invalidNames() {
        return List.of("", "$s", "$", "%s", "a.b", "a b", "a$b", "a/b", "caf\u00e9", "x".repeat(252));
    }

    @ParameterizedTest
    @MethodSource("invalidNames")
    void refusesAnInvalidScopeName(String name) {
        invalid(manifest("1", defaultScope(), scope(name, "8")));
    }

    @ParameterizedTest
    @MethodSource("invalidNames")
    void refusesAnInvalidCollectionName(String name) {
        invalid(manifest("1", defaultScope(collection(name, "8"))));
        invalid(manifest("1", defaultScope(), scope("s", "8", collection(name, "9"))));
    }

    // --- ids -----------------------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"1", "2", "3", "4", "5", "6", "7", "07", "00000007"})
    void refusesReservedScopeIds(String uid) {
        invalid(manifest("9", defaultScope(), scope("s", uid)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "2", "3", "4", "5", "6", "7", "07", "00000007"})
    void refusesReservedCollectionIds(String uid) {
        invalid(manifest("9", defaultScope(collection("c", uid))));
        invalid(manifest("9", defaultScope(), scope("s", "8", collection("c", uid))));
    }

    @Test
    void acceptsTheFirstUserId() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", defaultScope(), scope("s", "8", collection("c", "8"))));
        assertEquals(8, manifest.scope("s").id());
        assertEquals(8, manifest.collection(8).id());
    }

    @Test
    void refusesScopeIdZeroForAnyScopeButTheDefault() {
        invalid(manifest("9", scope("s", "0")));
        invalid(manifest("9", scope("s", "00000000", collection("_default", "0"))));
    }

    @Test
    void refusesTheDefaultScopeWithANonZeroId() {
        invalid(manifest("9", scope("_default", "8")));
        invalid(manifest("9", scope("_default", "8"), scope("s", "0")));
        invalid(manifest("9", scope("_default", "8", collection("_default", "0"))));
    }

    @Test
    void refusesCollectionIdZeroForAnyCollectionButTheDefault() {
        invalid(manifest("9", scope("_default", "0", collection("c", "0"))));
        invalid(manifest("9", scope("_default", "0", collection("c", "000"))));
    }

    @Test
    void refusesTheDefaultCollectionWithANonZeroId() {
        invalid(manifest("9", scope("_default", "0", collection("_default", "8"))));
        invalid(manifest("9", scope("_default", "0"), scope("s", "8", collection("_default", "9"))));
    }

    @Test
    void refusesTheDefaultCollectionOutsideTheDefaultScope() {
        invalid(manifest("9", scope("_default", "0"), scope("s", "8", collection("_default", "0"))));
        invalid(manifest("9", scope("s", "8", collection("_default", "0")), scope("_default", "0")));
    }

    @Test
    void refusesDuplicateScopeIds() {
        invalid(manifest("9", defaultScope(), scope("a", "8"), scope("b", "8")));
        invalid(manifest("9", defaultScope(), scope("a", "8"), scope("b", "08")));
        invalid(manifest("9", defaultScope(), scope("a", "ff"), scope("b", "FF")));
    }

    @Test
    void refusesDuplicateScopeNames() {
        invalid(manifest("9", defaultScope(), scope("a", "8"), scope("a", "9")));
        invalid(manifest("9", defaultScope(), scope("_default", "0")));
    }

    @Test
    void refusesDuplicateCollectionIdsWithinAndAcrossScopes() {
        invalid(manifest("9", defaultScope(collection("c", "8"), collection("d", "8"))));
        invalid(manifest("9", defaultScope(collection("c", "8")), scope("s", "9", collection("d", "8"))));
        invalid(manifest("9", defaultScope(), scope("s", "9", collection("c", "a")),
                scope("t", "b", collection("d", "A"))));
        invalid(manifest("9", defaultScope(collection("_default", "0"))));
    }

    @Test
    void aCollectionIdMayEqualAScopeId() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", defaultScope(), scope("s", "8", collection("c", "8"))));
        assertEquals(8, manifest.collection(8).scopeId());
    }

    @Test
    void refusesDuplicateCollectionNamesWithinAScope() {
        invalid(manifest("9", defaultScope(collection("c", "8"), collection("c", "9"))));
        invalid(manifest("9", defaultScope(), scope("s", "8", collection("c", "9"), collection("c", "a"))));
    }

    @Test
    void refusesAManifestWithoutTheDefaultScope() {
        invalid(j("{'uid':'1','scopes':[]}"));
        invalid(manifest("9", scope("s", "8")));
        invalid(manifest("9", scope("s", "8", collection("c", "9")), scope("t", "a")));
    }

    // --- limits --------------------------------------------------------------------------------------------------

    @Test
    void acceptsExactlyTheScopeLimit() throws ManifestRejected {
        assertEquals(3, parse(manifest("9", defaultScope(), scope("a", "8"), scope("b", "9")),
                new ManifestLimits(3, 10)).scopes().size());
        assertEquals(1, parse(manifest("9", defaultScope()), new ManifestLimits(1, 10)).scopes().size());
    }

    @Test
    void refusesOneScopeOverTheLimit() {
        invalid(manifest("9", defaultScope(), scope("a", "8"), scope("b", "9")), new ManifestLimits(2, 10));
        invalid(manifest("9", defaultScope()), new ManifestLimits(0, 10));
    }

    @Test
    void acceptsExactlyTheCollectionLimitCountedOverAllScopes() throws ManifestRejected {
        String json = manifest("9", defaultScope(collection("c", "8")), scope("s", "9", collection("d", "a"),
                collection("e", "b")), scope("t", "c"));
        CollectionsManifest manifest = parse(json, new ManifestLimits(10, 4));
        assertEquals(4, manifest.namespaces().size());
    }

    @Test
    void refusesOneCollectionOverTheLimitCountedOverAllScopes() {
        // No scope holds more than two, but the four together exceed the limit of three.
        String json = manifest("9", defaultScope(collection("c", "8")),
                scope("s", "a", collection("e", "b"), collection("f", "c")));
        invalid(json, new ManifestLimits(10, 3));
        invalid(manifest("9", defaultScope()), new ManifestLimits(10, 0));
    }

    @Test
    void emptyScopesCountNoCollections() throws ManifestRejected {
        CollectionsManifest manifest = parse(manifest("9", scope("_default", "0"), scope("s", "8")),
                new ManifestLimits(2, 0));
        assertTrue(manifest.namespaces().isEmpty());
    }

    @Test
    void aLargeManifestWithinLimitsParses() throws ManifestRejected {
        String[] collections = IntStream.range(0, 500)
                .mapToObj(i -> collection("c" + i, Integer.toHexString(8 + i)))
                .toArray(String[]::new);
        CollectionsManifest manifest = parse(manifest("1", defaultScope(collections)), new ManifestLimits(1, 501));
        assertEquals(501, manifest.namespaces().size());
        invalid(manifest("1", defaultScope(collections)), new ManifestLimits(1, 500));
    }
}
