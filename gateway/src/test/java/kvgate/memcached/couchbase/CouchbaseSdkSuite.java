package kvgate.memcached.couchbase;

import static kvgate.testing.BinaryClient.COLLECTIONS;
import static kvgate.testing.BinaryClient.GET_META;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.couchbase.client.core.env.SeedNode;
import com.couchbase.client.core.error.CasMismatchException;
import com.couchbase.client.core.error.CouchbaseException;
import com.couchbase.client.core.error.DocumentExistsException;
import com.couchbase.client.core.error.DocumentNotFoundException;
import com.couchbase.client.core.error.FeatureNotAvailableException;
import com.couchbase.client.core.error.TimeoutException;
import com.couchbase.client.core.error.subdoc.PathExistsException;
import com.couchbase.client.core.error.subdoc.PathMismatchException;
import com.couchbase.client.core.error.subdoc.PathNotFoundException;
import com.couchbase.client.java.Bucket;
import com.couchbase.client.java.Cluster;
import com.couchbase.client.java.ClusterOptions;
import com.couchbase.client.java.Collection;
import com.couchbase.client.java.json.JsonArray;
import com.couchbase.client.java.json.JsonObject;
import com.couchbase.client.java.kv.GetOptions;
import com.couchbase.client.java.kv.GetResult;
import com.couchbase.client.java.kv.IncrementOptions;
import com.couchbase.client.java.kv.LookupInResult;
import com.couchbase.client.java.kv.LookupInSpec;
import com.couchbase.client.java.kv.MutateInOptions;
import com.couchbase.client.java.kv.MutateInResult;
import com.couchbase.client.java.kv.MutateInSpec;
import com.couchbase.client.java.kv.MutationResult;
import com.couchbase.client.java.kv.ReplaceOptions;
import com.couchbase.client.java.kv.StoreSemantics;
import com.couchbase.client.java.kv.UpsertOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kvgate.testing.BackendServers;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.Ports;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unmodified Couchbase Java SDK bootstraps from the gateway as from a Couchbase server (HELLO, error map, SCRAM
 * authentication, bucket selection, the cluster map) over the memcached port alone, then works on documents in the
 * default collection and in a named one, which other binary clients see as the same items; with the management port
 * served, its waitUntilReady returns. Run once per backend: the SDK's clients move onto another store without
 * changing.
 */
abstract class CouchbaseSdkSuite {
    @TempDir
    static Path directory;
    static TestGateway gateway;
    /** The management port the gateway serves and its cluster map names, which the SDK is told too. */
    private static int mgmtPort;
    /** Whether the backend tells an item's expiry when read (a memcached pool cannot: GetMeta then says none). */
    private static boolean backendTellsExpiry;

    /**
     * Starts the gateway on {@code servers} (none: the local store) with the SDK's users and a named collection.
     *
     * @param tellsExpiry whether the backend tells an item's expiry when it is read
     */
    static void start(BackendServers servers, boolean tellsExpiry) throws Exception {
        backendTellsExpiry = tellsExpiry;
        Map<String, String> settings = TestGateway.passwordFile(directory,
                "# who may connect\nAdministrator:password\nalice:pass:word,=x\n");
        mgmtPort = Ports.free();
        settings = TestGateway.with(settings, "memcached.mgmt_enable", "true",
                "memcached.mgmt_port", Integer.toString(mgmtPort));
        gateway = servers == null ? TestGateway.start(settings) : TestGateway.start(servers, settings);
        try (BinaryClient admin = new BinaryClient(gateway.port())) {
            assertEquals(0, admin.authenticate("Administrator", "password").status());
            assertEquals(0, admin.setManifest("{\"uid\":\"2\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                    + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"}]},{\"name\":\"app\",\"uid\":\"8\","
                    + "\"collections\":[{\"name\":\"users\",\"uid\":\"9\"}]}]}").status());
        }
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** The gateway as the SDK is told of it: the memcached port as the KV port, and the management port. */
    private static Set<SeedNode> seed() {
        return Set.of(SeedNode.create("127.0.0.1", Optional.of(gateway.port()), Optional.of(mgmtPort)));
    }

    private static Cluster connect(String user, String password) {
        return Cluster.connect(seed(), ClusterOptions.clusterOptions(user, password).environment(env -> env
                .timeoutConfig(timeouts -> timeouts.kvTimeout(Duration.ofSeconds(5)))));
    }

    @Test
    void theSdkWorksOnDocumentsOfTheDefaultCollection() throws Exception {
        Cluster cluster = connect("Administrator", "password");
        try {
            Collection documents = cluster.bucket("default").defaultCollection();
            JsonObject ada = JsonObject.create().put("name", "Ada").put("born", 1815);
            MutationResult stored = documents.upsert("user::ada", ada);
            GetResult read = documents.get("user::ada");
            assertEquals(ada, read.contentAsObject());
            assertEquals(stored.cas(), read.cas());
            assertThrows(DocumentExistsException.class, () -> documents.insert("user::ada", ada));
            assertThrows(CasMismatchException.class, () -> documents.replace("user::ada", ada,
                    ReplaceOptions.replaceOptions().cas(stored.cas() + 1)));
            JsonObject older = JsonObject.create().put("name", "Ada").put("born", 1815).put("title", "Countess");
            MutationResult replaced = documents.replace("user::ada", older,
                    ReplaceOptions.replaceOptions().cas(stored.cas()));
            assertNotEquals(stored.cas(), replaced.cas());
            assertEquals("Countess", documents.getAndTouch("user::ada", Duration.ofHours(1)).contentAsObject()
                    .getString("title"));
            documents.touch("user::ada", Duration.ofHours(2));

            assertEquals(10, documents.binary().increment("visits",
                    IncrementOptions.incrementOptions().initial(10)).content());
            assertEquals(15, documents.binary().increment("visits",
                    IncrementOptions.incrementOptions().delta(5)).content());
            assertThrows(DocumentNotFoundException.class, () -> documents.binary().increment("no-such-counter"));

            assertTrue(documents.exists("user::ada").exists());
            documents.remove("user::ada");
            assertThrows(DocumentNotFoundException.class, () -> documents.get("user::ada"));
            assertFalse(documents.exists("user::ada").exists());

            // What the SDK wrote is an ordinary item to a memcached client: the JSON and the SDK's JSON flags.
            documents.upsert("user::bob", JsonObject.create().put("name", "Bob"));
            try (BinaryClient plain = new BinaryClient(gateway.port())) {
                assertEquals(0, plain.authenticate("alice", "pass:word,=x").status());
                Response bob = plain.get("user::bob");
                assertEquals(0, bob.status());
                assertEquals("{\"name\":\"Bob\"}", bob.valueText());
                assertEquals(0x02000000, bob.flags());
                // GetMeta, as exists() sends it (version 2: the datatype too): deleted, flags, expiry, sequence.
                long expiresAt = System.currentTimeMillis() / 1000 + 3600;
                assertEquals(0, plain.call(BinaryClient.SET, BinaryClient.storeExtras(7, (int) expiresAt),
                        bytes("meta"), bytes("m"), 0).status());
                Response meta = plain.call(GET_META, new byte[] {2}, bytes("meta"), NONE, 0);
                assertEquals(0, meta.status());
                ByteBuffer extras = ByteBuffer.wrap(meta.extras());
                assertEquals(21, extras.remaining());
                assertEquals(0, extras.getInt(0));
                assertEquals(7, extras.getInt(4));
                assertEquals(backendTellsExpiry ? expiresAt : 0, extras.getInt(8));
                assertEquals(meta.cas(), extras.getLong(12));
                assertEquals(0, meta.value().length);
                assertEquals(20, plain.call(GET_META, NONE, bytes("meta"), NONE, 0).extras().length);
                assertEquals(0x0001, plain.call(GET_META, NONE, bytes("no-such"), NONE, 0).status());
                assertEquals(0x0004, plain.call(GET_META, new byte[2], bytes("meta"), NONE, 0).status());
                assertEquals(20, plain.call(GET_META, new byte[] {1}, bytes("meta"), NONE, 0).extras().length);
                for (byte version : new byte[] {0, 3}) {
                    assertEquals(0x0004, plain.call(GET_META, new byte[] {version}, bytes("meta"), NONE, 0)
                            .status(), "version " + version);
                }
            }
        } finally {
            cluster.disconnect();
        }
    }

    @Test
    void theSdkWorksOnANamedCollection() throws Exception {
        Cluster cluster = connect("alice", "pass:word,=x");
        try {
            Collection users = cluster.bucket("default").scope("app").collection("users");
            users.upsert("carol", JsonObject.create().put("name", "Carol"));
            assertEquals("Carol", users.get("carol").contentAsObject().getString("name"));
            assertThrows(DocumentNotFoundException.class,
                    () -> cluster.bucket("default").defaultCollection().get("carol"));
            try (BinaryClient plain = new BinaryClient(gateway.port())) {
                assertEquals(0, plain.authenticate("alice", "pass:word,=x").status());
                plain.hello(COLLECTIONS);
                Response carol = plain.call(BinaryClient.GET, NONE, BinaryClient.collectionKey(9, "carol"), NONE, 0);
                assertEquals(0, carol.status());
                assertEquals("{\"name\":\"Carol\"}", carol.valueText());
                assertEquals(0x0001, plain.call(BinaryClient.GET, NONE, BinaryClient.collectionKey(0, "carol"),
                        NONE, 0).status());
            }
        } finally {
            cluster.disconnect();
        }
    }

    /** A get that also reads the document's expiry, as {@code withExpiry} asks it (the virtual $document). */
    private static GetResult withExpiry(Collection documents, String id) {
        return documents.get(id, GetOptions.getOptions().withExpiry(true));
    }

    private static Optional<Instant> expiryOf(Collection documents, String id) {
        return withExpiry(documents, id).expiryTime();
    }

    @Test
    void preserveExpiryKeepsADocumentsExpiryWhereTheBackendCanAndIsRefusedAtOnceWhereItCannot() throws Exception {
        Cluster cluster = connect("Administrator", "password");
        try {
            Collection documents = cluster.bucket("default").scope("app").collection("users");
            Instant expiry = Instant.ofEpochSecond(System.currentTimeMillis() / 1000 + 3600);
            documents.upsert("kim", JsonObject.create().put("name", "Kim"), UpsertOptions.upsertOptions()
                    .expiry(expiry));
            if (!backendTellsExpiry) {
                // A memcached pool cannot keep an expiry through a write: the gateway does not grant PreserveTtl, so
                // the SDK refuses it itself, as with a server without the feature; nothing is written.
                assertThrows(FeatureNotAvailableException.class, () -> documents.upsert("kim",
                        JsonObject.create().put("name", "Kimberly"), UpsertOptions.upsertOptions()
                                .preserveExpiry(true)));
                assertEquals("Kim", documents.get("kim").contentAsObject().getString("name"));
                return;
            }
            documents.upsert("kim", JsonObject.create().put("name", "Kimberly"), UpsertOptions.upsertOptions()
                    .preserveExpiry(true));
            GetResult upserted = withExpiry(documents, "kim");
            assertEquals("Kimberly", upserted.contentAsObject().getString("name"));
            assertEquals(Optional.of(expiry), upserted.expiryTime(), "kept by an upsert");
            documents.replace("kim", JsonObject.create().put("name", "Kim").put("logins", 1),
                    ReplaceOptions.replaceOptions().preserveExpiry(true));
            assertEquals(Optional.of(expiry), expiryOf(documents, "kim"), "kept by a replace");
            documents.mutateIn("kim", List.of(MutateInSpec.increment("logins", 1)),
                    MutateInOptions.mutateInOptions().preserveExpiry(true));
            GetResult mutated = withExpiry(documents, "kim");
            assertEquals(2, mutated.contentAsObject().getInt("logins"));
            assertEquals(Optional.of(expiry), mutated.expiryTime(), "kept by a sub-document mutation");
            // Without it, an upsert that gives no expiry clears it, as on a Couchbase server.
            documents.upsert("kim", JsonObject.create().put("name", "Kim"));
            assertEquals(Optional.empty(), expiryOf(documents, "kim"));
        } finally {
            cluster.disconnect();
        }
    }

    @Test
    void theSdkLooksUpAndChangesPathsInDocuments() throws Exception {
        Cluster cluster = connect("Administrator", "password");
        try {
            Collection documents = cluster.bucket("default").scope("app").collection("users");
            JsonObject dan = JsonObject.create().put("name", "Dan").put("logins", 3)
                    .put("tags", JsonArray.from("a", "b")).put("address", JsonObject.create().put("city", "Oslo"));
            MutationResult stored = documents.upsert("dan", dan);

            LookupInResult found = documents.lookupIn("dan", List.of(LookupInSpec.get("address.city"),
                    LookupInSpec.exists("phone"), LookupInSpec.count("tags"), LookupInSpec.get("tags[-1]"),
                    LookupInSpec.get("")));
            assertEquals("Oslo", found.contentAs(0, String.class));
            assertFalse(found.exists(1));
            assertEquals(2, found.contentAs(2, Integer.class));
            assertEquals("b", found.contentAs(3, String.class));
            assertEquals(dan, found.contentAsObject(4));
            assertEquals(stored.cas(), found.cas());
            assertThrows(PathNotFoundException.class, () -> found.contentAs(1, String.class));
            assertThrows(DocumentNotFoundException.class,
                    () -> documents.lookupIn("nobody", List.of(LookupInSpec.get("name"))));

            MutateInResult changed = documents.mutateIn("dan", List.of(
                    MutateInSpec.upsert("address.zip", "0150"),
                    MutateInSpec.insert("phone", "555-0100"),
                    MutateInSpec.replace("name", "Daniel"),
                    MutateInSpec.remove("tags[0]"),
                    MutateInSpec.arrayAppend("tags", List.of("c", "d")),
                    MutateInSpec.arrayPrepend("tags", List.of("z")),
                    MutateInSpec.arrayInsert("tags[1]", List.of("y")),
                    MutateInSpec.arrayAddUnique("tags", "e"),
                    MutateInSpec.increment("logins", 2),
                    MutateInSpec.decrement("credit", 5).createPath(),
                    MutateInSpec.upsert("prefs.theme.color", "dark").createPath()));
            assertEquals(5, changed.contentAs(8, Long.class));
            assertEquals(-5, changed.contentAs(9, Long.class));
            assertNotEquals(stored.cas(), changed.cas());
            JsonObject now = documents.get("dan").contentAsObject();
            assertEquals("Daniel", now.getString("name"));
            assertEquals("0150", now.getObject("address").getString("zip"));
            assertEquals("555-0100", now.getString("phone"));
            assertEquals(JsonArray.from("z", "y", "b", "c", "d", "e"), now.getArray("tags"));
            assertEquals(5, now.getInt("logins"));
            assertEquals(-5, now.getInt("credit"));
            assertEquals("dark", now.getObject("prefs").getObject("theme").getString("color"));

            // A path that fails fails the whole mutation: nothing of it is written.
            assertThrows(PathExistsException.class, () -> documents.mutateIn("dan", List.of(
                    MutateInSpec.upsert("seen", true), MutateInSpec.insert("phone", "other"))));
            assertThrows(PathNotFoundException.class, () -> documents.mutateIn("dan", List.of(
                    MutateInSpec.replace("no.such.path", 1))));
            assertThrows(PathExistsException.class, () -> documents.mutateIn("dan", List.of(
                    MutateInSpec.arrayAddUnique("tags", "c"))));
            assertThrows(PathMismatchException.class, () -> documents.mutateIn("dan", List.of(
                    MutateInSpec.arrayAppend("name", List.of(1)))));
            assertFalse(documents.get("dan").contentAsObject().containsKey("seen"));
            assertThrows(CasMismatchException.class, () -> documents.mutateIn("dan", List.of(
                    MutateInSpec.upsert("seen", true)), MutateInOptions.mutateInOptions().cas(stored.cas())));
            assertThrows(DocumentNotFoundException.class, () -> documents.mutateIn("nobody", List.of(
                    MutateInSpec.upsert("seen", true))));

            // Store semantics: upsert and insert create the document, insert only where there is none.
            documents.mutateIn("eve", List.of(MutateInSpec.upsert("name", "Eve"),
                    MutateInSpec.arrayAppend("tags", List.of("x")).createPath()),
                    MutateInOptions.mutateInOptions().storeSemantics(StoreSemantics.UPSERT));
            assertEquals(JsonObject.create().put("name", "Eve").put("tags", JsonArray.from("x")),
                    documents.get("eve").contentAsObject());
            assertThrows(DocumentExistsException.class, () -> documents.mutateIn("eve", List.of(
                    MutateInSpec.upsert("name", "Eve")), MutateInOptions.mutateInOptions()
                    .storeSemantics(StoreSemantics.INSERT)));
            documents.mutateIn("fay", List.of(MutateInSpec.insert("name", "Fay")),
                    MutateInOptions.mutateInOptions().storeSemantics(StoreSemantics.INSERT));
            assertEquals("Fay", documents.get("fay").contentAsObject().getString("name"));
            // A projection is a lookup of the paths asked for.
            assertEquals(JsonObject.create().put("name", "Daniel").put("address", JsonObject.create()
                    .put("city", "Oslo")), documents.get("dan", GetOptions.getOptions().project("name",
                    "address.city")).contentAsObject());
            // Replica reads: the map has no replicas, so they read the one copy there is.
            assertEquals("Daniel", documents.getAnyReplica("dan").contentAsObject().getString("name"));
            assertEquals(1, documents.getAllReplicas("dan").count());
            // Locks are not served: refused at once (unknown command), not timed out.
            CouchbaseException unlocked = assertThrows(CouchbaseException.class,
                    () -> documents.getAndLock("dan", Duration.ofSeconds(5)));
            assertFalse(unlocked instanceof TimeoutException, String.valueOf(unlocked));
            // The expiry comes from the virtual attribute $document, which the gateway makes from the item.
            Instant expiry = Instant.ofEpochSecond(System.currentTimeMillis() / 1000 + 3600);
            documents.upsert("gil", JsonObject.create().put("name", "Gil"), UpsertOptions.upsertOptions()
                    .expiry(expiry));
            GetResult withExpiry = withExpiry(documents, "gil");
            assertEquals("Gil", withExpiry.contentAsObject().getString("name"));
            assertEquals(backendTellsExpiry ? Optional.of(expiry) : Optional.empty(), withExpiry.expiryTime());
            assertEquals(Optional.empty(), expiryOf(documents, "dan"));
            // Attributes are not stored: writing one is refused at once, not timed out.
            CouchbaseException refused = assertThrows(CouchbaseException.class, () -> documents.mutateIn("dan",
                    List.of(MutateInSpec.upsert("meta.tag", 1).xattr())));
            assertFalse(refused instanceof TimeoutException, String.valueOf(refused));
        } finally {
            cluster.disconnect();
        }
    }

    @Test
    void waitUntilReadyReturnsOnceTheManagementPortSaysTheNodeIsHealthy() {
        Cluster cluster = connect("alice", "pass:word,=x");
        try {
            Bucket bucket = cluster.bucket("default");
            // The bucket's wait asks the management port for the bucket's map and every node in it to be healthy,
            // then pings the memcached port; the cluster's pings only what needs no bucket, of which there is none.
            bucket.waitUntilReady(Duration.ofSeconds(10));
            cluster.waitUntilReady(Duration.ofSeconds(10));
            bucket.defaultCollection().upsert("ready", JsonObject.create().put("ready", true));
            assertTrue(bucket.defaultCollection().get("ready").contentAsObject().getBoolean("ready"));
        } finally {
            cluster.disconnect();
        }
    }

    @Test
    void aWrongPasswordGetsTheSdkNothing() {
        Cluster cluster = Cluster.connect(seed(), ClusterOptions.clusterOptions("alice", "wrong").environment(env -> env
                .timeoutConfig(timeouts -> timeouts.kvTimeout(Duration.ofSeconds(2)))));
        try {
            Collection documents = cluster.bucket("default").defaultCollection();
            // Each get fails; the SDK names the refused login among its retry reasons once its connection has tried
            // one, which on a loaded machine may take longer than the first get's two seconds.
            CouchbaseException failure = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                failure = assertThrows(CouchbaseException.class, () -> documents.get("anything"));
                if (String.valueOf(failure).toLowerCase().contains("auth")) {
                    break;
                }
            }
            assertTrue(String.valueOf(failure).toLowerCase().contains("auth"), String.valueOf(failure));
        } finally {
            cluster.disconnect();
        }
    }
}
