package kvgate.memcached.couchbase;

import static kvgate.testing.BinaryClient.GET_CLUSTER_CONFIG;
import static kvgate.testing.BinaryClient.GET_ERROR_MAP;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.NOOP;
import static kvgate.testing.BinaryClient.SASL_AUTH;
import static kvgate.testing.BinaryClient.SASL_LIST_MECHS;
import static kvgate.testing.BinaryClient.SASL_STEP;
import static kvgate.testing.BinaryClient.SELECT_BUCKET;
import static kvgate.testing.BinaryClient.VERSION;
import static kvgate.testing.BinaryClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.config.ConfigurationException;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.auth.AuthDescriptor;
import net.spy.memcached.auth.PlainCallbackHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on the memcached port, byte by byte: with a password file nothing but the handshake is served before a
 * client authenticates; PLAIN as memcached serves it (and a real client's PLAIN), SCRAM's refusals, the error map
 * and the cluster map a Couchbase client bootstraps from. What the SDK itself does is CouchbaseSdkTest's.
 */
class SaslAuthenticationTest {
    private static final int AUTH_ERROR = 0x20;
    private static final int AUTH_CONTINUE = 0x21;
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path directory;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(TestGateway.passwordFile(directory, "ops:secret\n\n# a comment\nbob:b0b\n"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static Response sasl(BinaryClient client, int opcode, String mechanism, String message)
            throws Exception {
        return client.call(opcode, NONE, bytes(mechanism), bytes(message), 0);
    }

    @Test
    void beforeAuthenticationOnlyTheHandshakeIsServed() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            for (int opcode : new int[] {NOOP, VERSION}) {
                assertEquals(0, client.call(opcode, NONE, NONE, NONE, 0).status(), "opcode " + opcode);
            }
            assertEquals(1, client.hello(BinaryClient.JSON).length);
            assertEquals(AUTH_ERROR, client.get("k").status());
            assertEquals(AUTH_ERROR, client.set("k", "v", 0, 0).status());
            assertEquals(AUTH_ERROR, client.call(SELECT_BUCKET, NONE, bytes("default"), NONE, 0).status());
            assertEquals(AUTH_ERROR, client.call(BinaryClient.STAT, NONE, NONE, NONE, 0).status());
            assertEquals(AUTH_ERROR, client.call(GET_CLUSTER_CONFIG, NONE, NONE, NONE, 0).status());
            assertEquals(AUTH_ERROR, client.call(BinaryClient.FLUSH, NONE, NONE, NONE, 0).status());
            Response mechanisms = client.call(SASL_LIST_MECHS, NONE, NONE, NONE, 0);
            assertEquals(0, mechanisms.status());
            assertEquals("SCRAM-SHA512 SCRAM-SHA256 SCRAM-SHA1 CRAM-MD5 PLAIN", mechanisms.valueText());

            double failedBefore = gateway.gateway().metrics().refusals("memcached", "auth_failed").count();
            Response wrong = client.authenticate("ops", "guess");
            assertEquals(AUTH_ERROR, wrong.status());
            assertEquals("Auth failure", wrong.valueText());
            assertEquals(AUTH_ERROR, client.authenticate("nobody", "secret").status());
            assertEquals(AUTH_ERROR, client.get("k").status());
            // Each failed login is counted (and logged, rate-limited, with the peer and user, never the password).
            assertEquals(failedBefore + 2, gateway.gateway().metrics().refusals("memcached", "auth_failed").count());

            Response right = client.authenticate("ops", "secret");
            assertEquals(0, right.status());
            assertEquals("Authenticated", right.valueText());
            assertEquals(0, client.set("k", "v", 0, 0).status());
            assertEquals("v", client.get("k").valueText());

            // A failed attempt to authenticate again leaves the connection unauthenticated (stricter than memcached,
            // which keeps the user): what a connection may do is what its last exchange proved.
            assertEquals(AUTH_ERROR, client.authenticate("bob", "wrong").status());
            assertEquals(AUTH_ERROR, client.get("k").status());
            assertEquals(0, client.authenticate("bob", "b0b").status());
            assertEquals("v", client.get("k").valueText());
            Map<String, String> stats = client.stats("");
            assertTrue(Long.parseLong(stats.get("auth_cmds")) >= 5, stats.toString());
            assertTrue(Long.parseLong(stats.get("auth_errors")) >= 3, stats.toString());
        }
    }

    /** A set too large for the gateway removes the key's old value (as memcached's does), once authenticated only. */
    @Test
    void anOversizedSetBeforeAuthenticationRemovesNothing() throws Exception {
        try (BinaryClient owner = new BinaryClient(gateway.port());
             BinaryClient stranger = new BinaryClient(gateway.port())) {
            assertEquals(0, owner.authenticate("ops", "secret").status());
            assertEquals(0, owner.set("kept", "value", 0, 0).status());
            Response tooLarge = stranger.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes("kept"),
                    new byte[2 * 1024 * 1024], 0);
            assertEquals(0x03, tooLarge.status());
            assertEquals("value", owner.get("kept").valueText());
            assertEquals(0x03, owner.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes("kept"),
                    new byte[2 * 1024 * 1024], 0).status());
            assertEquals(0x01, owner.get("kept").status(), "the owner's own oversized set does remove it");
        }
    }

    @Test
    void malformedExchangesFailAndTheConnectionGoesOn() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            String[][] bad = {
                    {"PLAIN", "ops secret"},                       // no NULs
                    {"PLAIN", "\0ops\0secret\0"},                   // a third NUL
                    {"PLAIN", "\0\0secret"},                       // no user
                    {"PLAIN", "bob\0ops\0secret"},                  // acting as another user
                    {"DIGEST-MD5", ""},                             // not offered
                    {"SCRAM-SHA256", "p=tls-server-end-point,,n=ops,r=abc"}, // channel binding
                    {"SCRAM-SHA256", "n,,r=abc"},                  // no user
                    {"SCRAM-SHA256", "n,,n=ops"},                  // no nonce
                    {"SCRAM-SHA256", "n,a=bob,n=ops,r=abc"},       // acting as another user
                    {"SCRAM-SHA256", "n,,n=o=ps,r=abc"},           // a bad escape in the name
            };
            for (String[] attempt : bad) {
                failsAndGoesOn(client, sasl(client, SASL_AUTH, attempt[0], attempt[1]), attempt[0] + " " + attempt[1]);
            }
            failsAndGoesOn(client, sasl(client, SASL_STEP, "SCRAM-SHA256", "c=biws,r=abc,p=AAAA"),
                    "a step with no exchange under way");
            Response first = sasl(client, SASL_AUTH, "SCRAM-SHA256", "n,,n=ops,r=clientnonce");
            assertEquals(AUTH_CONTINUE, first.status());
            String serverFirst = first.valueText();
            assertTrue(serverFirst.matches("r=clientnonce[A-Za-z0-9+/=]+,s=[A-Za-z0-9+/=]+,i=4096"), serverFirst);
            String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
            assertEquals(AUTH_ERROR, sasl(client, SASL_STEP, "SCRAM-SHA512", "c=biws,r=" + nonce + ",p=AAAA")
                    .status(), "a step of another mechanism");
            // That ended the exchange: the right mechanism's step now finds none under way.
            failsAndGoesOn(client, sasl(client, SASL_STEP, "SCRAM-SHA256", "c=biws,r=" + nonce + ",p=AAAA"),
                    "a step after the exchange ended");
            // Each bad final message ends an exchange of its own: {nonce} stands for that exchange's nonce.
            for (String finalMessage : new String[] {"c=biws,r={nonce}", "c=biws,r=othernonce,p=AAAA",
                    "c=eSws,r={nonce},p=AAAA", "c=biws,r={nonce},p=!!!", "c=biws,r={nonce},p=" + "A".repeat(44)}) {
                Response started = sasl(client, SASL_AUTH, "SCRAM-SHA256", "n,,n=ops,r=cn");
                assertEquals(AUTH_CONTINUE, started.status());
                String exchangeNonce = started.valueText().substring(2, started.valueText().indexOf(','));
                failsAndGoesOn(client, sasl(client, SASL_STEP, "SCRAM-SHA256",
                        finalMessage.replace("{nonce}", exchangeNonce)), finalMessage);
            }
            assertEquals(AUTH_CONTINUE, sasl(client, SASL_AUTH, "SCRAM-SHA1", "n,a=o=2Cps,n=o=2Cps,r=x").status(),
                    "an authzid naming the user, escaped as the name is");
        }
    }

    /** {@code failure} is an authentication error, and the connection still authenticates (which resets the count). */
    private static void failsAndGoesOn(BinaryClient client, Response failure, String why) throws Exception {
        assertEquals(AUTH_ERROR, failure.status(), why);
        assertEquals(AUTH_ERROR, client.get("k").status(), why);
        assertEquals(0, client.authenticate("ops", "secret").status(), why);
    }

    @Test
    void theThirdFailureInARowClosesTheConnection() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port(), 2000)) {
            // With XError granted, a failure says why in Couchbase's JSON form; the reason never tells whether the
            // user exists.
            client.hello(BinaryClient.XERROR);
            Response unknownUser = client.authenticate("nobody", "secret");
            Response wrongPassword = client.authenticate("ops", "guess");
            assertEquals(AUTH_ERROR, unknownUser.status());
            assertEquals("wrong user or password", JSON.readTree(unknownUser.value()).get("error").get("context")
                    .asText());
            assertEquals(unknownUser.valueText(), wrongPassword.valueText());
            Response third = sasl(client, SASL_AUTH, "SCRAM-SHA1", "n,,r=abc");
            assertEquals("{\"error\":{\"context\":\"SCRAM's first message must name the user (n=)\"}}",
                    third.valueText());
            assertTrue(client.closedByServer(), "a guesser must reconnect");
        }
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(AUTH_ERROR, client.authenticate("ops", "guess").status());
            assertEquals(AUTH_ERROR, client.authenticate("ops", "guess").status());
            assertEquals(0, client.authenticate("ops", "secret").status(), "a success resets the count");
            assertEquals(AUTH_ERROR, client.authenticate("ops", "guess").status());
            assertEquals(AUTH_ERROR, client.authenticate("ops", "guess").status());
            assertEquals(0, client.authenticate("ops", "secret").status());
        }
    }

    @Test
    void anUnknownUserGetsTheSameSaltOnEveryAttemptAsAKnownOneDoes() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            for (String user : new String[] {"ops", "mallory"}) {
                String salt = null;
                for (int attempt = 0; attempt < 2; attempt++) {
                    String serverFirst = sasl(client, SASL_AUTH, "SCRAM-SHA1", "n,,n=" + user + ",r=x").valueText();
                    String given = serverFirst.split(",")[1];
                    assertTrue(salt == null || salt.equals(given), user + ": " + serverFirst);
                    salt = given;
                }
            }
        }
    }

    @Test
    void theErrorMapAnswersTheVersionAskedForFromOneToTwo() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            int[][] askedAndServed = {{0, 1}, {1, 1}, {2, 2}, {7, 2}, {0xffff, 2}};
            for (int[] versions : askedAndServed) {
                Response reply = client.call(GET_ERROR_MAP, NONE, NONE,
                        new byte[] {(byte) (versions[0] >> 8), (byte) versions[0]}, 0);
                assertEquals(0, reply.status());
                JsonNode map = JSON.readTree(reply.value());
                assertEquals(versions[1], map.get("version").asInt(), "asked for " + versions[0]);
                JsonNode unknownCollection = map.get("errors").get("88");
                assertEquals("UNKNOWN_COLLECTION", unknownCollection.get("name").asText());
                assertEquals("invalid-input", unknownCollection.get("attrs").get(0).asText());
                assertEquals("temp", map.get("errors").get("86").get("attrs").get(0).asText());
                assertEquals("auth", map.get("errors").get("20").get("attrs").get(0).asText());
            }
            assertEquals(0x04, client.call(GET_ERROR_MAP, NONE, NONE, new byte[] {2}, 0).status());
            assertEquals(0x04, client.call(GET_ERROR_MAP, NONE, NONE, NONE, 0).status());
        }
    }

    @Test
    void theClusterMapNamesThePortTheClientReachedAndOnlyOnceABucketIsSelected() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.authenticate("ops", "secret").status());
            assertEquals(0x08, client.call(GET_CLUSTER_CONFIG, NONE, NONE, NONE, 0).status(),
                    "the cluster's own map has no bucket");
            assertEquals(0, client.call(SELECT_BUCKET, NONE, bytes("default"), NONE, 0).status());
            Response reply = client.call(GET_CLUSTER_CONFIG, NONE, NONE, NONE, 0);
            assertEquals(0, reply.status());
            JsonNode map = JSON.readTree(reply.value());
            assertEquals("default", map.get("name").asText());
            assertEquals(ClusterConfig.REVISION, map.get("rev").asInt());
            assertEquals("vbucket", map.get("nodeLocator").asText());
            JsonNode node = map.get("nodesExt").get(0);
            assertTrue(node.get("thisNode").asBoolean());
            assertEquals(gateway.port(), node.get("services").get("kv").asInt());
            assertEquals(8091, node.get("services").get("mgmt").asInt());
            assertEquals("$HOST:" + gateway.port(), map.get("vBucketServerMap").get("serverList").get(0).asText());
            assertEquals(1, map.get("vBucketServerMap").get("vBucketMap").size());
            assertEquals(1, map.get("nodes").size());
        }
    }

    /** spymemcached's usual descriptor tries CRAM-MD5 first; the other asks for PLAIN alone. */
    @Test
    void behindAPortMappingTheClusterMapNamesTheAdvertisedPort() throws Exception {
        try (TestGateway mapped = TestGateway.start(Map.of("memcached.advertised_port", "21210",
                "memcached.mgmt_port", "18091"));
             BinaryClient client = new BinaryClient(mapped.port())) {
            assertEquals(0, client.call(SELECT_BUCKET, NONE, bytes("default"), NONE, 0).status());
            JsonNode map = JSON.readTree(client.call(GET_CLUSTER_CONFIG, NONE, NONE, NONE, 0).value());
            assertEquals(21210, map.get("nodesExt").get(0).get("services").get("kv").asInt());
            assertEquals(18091, map.get("nodesExt").get(0).get("services").get("mgmt").asInt());
            assertEquals("$HOST:21210", map.get("vBucketServerMap").get("serverList").get(0).asText());
        }
    }

    @Test
    void aRealClientAuthenticatesWithCramMd5AndWithPlain() throws Exception {
        AuthDescriptor[] descriptors = {AuthDescriptor.typical("bob", "b0b"),
                new AuthDescriptor(new String[] {"PLAIN"}, new PlainCallbackHandler("bob", "b0b"))};
        for (AuthDescriptor descriptor : descriptors) {
            long before = authentications();
            MemcachedClient client = new MemcachedClient(new ConnectionFactoryBuilder()
                    .setProtocol(ConnectionFactoryBuilder.Protocol.BINARY).setAuthDescriptor(descriptor).build(),
                    AddrUtil.getAddresses("127.0.0.1:" + gateway.port()));
            try {
                assertTrue(client.set("spy-auth", 0, "in").get(5, TimeUnit.SECONDS));
                assertEquals("in", client.get("spy-auth"));
            } finally {
                client.shutdown(5, TimeUnit.SECONDS);
            }
            // One for the client, one for the reading of the counters.
            assertEquals(before + 2, authentications(), descriptor.getMechs()[0]);
        }
    }

    @Test
    void cramMd5RefusesAWrongDigest() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            for (String response : new String[] {"bob 0123456789abcdef0123456789abcdef", "bob", "",
                    "nobody 0123456789abcdef0123456789abcdef"}) {
                Response challenge = sasl(client, SASL_AUTH, "CRAM-MD5", "");
                assertEquals(AUTH_CONTINUE, challenge.status());
                assertTrue(challenge.valueText().matches("<[A-Za-z0-9+/=]+@kvgate>"), challenge.valueText());
                failsAndGoesOn(client, sasl(client, SASL_STEP, "CRAM-MD5", response), response);
            }
        }
    }

    /** Successful authentications, from the STAT counters (read on a connection of its own). */
    private static long authentications() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.authenticate("ops", "secret").status());
            Map<String, String> stats = client.stats("");
            return Long.parseLong(stats.get("auth_cmds")) - Long.parseLong(stats.get("auth_errors"));
        }
    }

    @Test
    void withoutAPasswordFileNothingNeedsAuthenticationAndPlainAcceptsAnyone() throws Exception {
        try (TestGateway open = TestGateway.start();
             BinaryClient client = new BinaryClient(open.port())) {
            assertEquals(0, client.set("k", "v", 0, 0).status());
            Response mechanisms = client.call(SASL_LIST_MECHS, NONE, NONE, NONE, 0);
            assertEquals("CRAM-MD5 PLAIN", mechanisms.valueText());
            assertEquals(0, client.authenticate("anyone", "anything").status());
            assertEquals(AUTH_ERROR, sasl(client, SASL_AUTH, "SCRAM-SHA512", "n,,n=anyone,r=abc").status(),
                    "SCRAM needs a password to prove the server knows");
            assertEquals("v", client.get("k").valueText());
        }
    }

    /** The other protocols have no authentication: the start warns of each one listening beyond loopback. */
    @Test
    void aPasswordFileWithOpenUnauthenticatedListenersIsWarnedOf() throws Exception {
        Map<String, String> settings = TestGateway.with(TestGateway.passwordFile(directory, "ops:secret\n"),
                "okuyama.bind", "0.0.0.0");
        assertTrue(startupLog(settings).contains("memcached.sasl_pwdb protects the memcached port only; these "
                + "listeners have no authentication and are open beyond this host: [okuyama.bind = 0.0.0.0]"));
        assertFalse(startupLog(TestGateway.passwordFile(directory, "ops:secret\n")).contains("protects the memcached"),
                "every listener on loopback");
    }

    /** What a gateway started with {@code settings} logs while it starts (the log goes to the standard error). */
    private static String startupLog(Map<String, String> settings) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (TestGateway started = TestGateway.start(settings)) {
            return captured.toString(StandardCharsets.UTF_8);
        } finally {
            System.setErr(original);
        }
    }

    @Test
    void aBadPasswordFileStopsTheStart() throws Exception {
        Path missing = directory.resolve("missing");
        Path noColon = directory.resolve("no-colon");
        Files.writeString(noColon, "ops:secret\njustaname\n");
        Path twice = directory.resolve("twice");
        Files.writeString(twice, "ops:a\nops:b\n");
        Path empty = directory.resolve("empty");
        Files.writeString(empty, "# nobody\n");
        Path noPassword = directory.resolve("no-password");
        Files.writeString(noPassword, "ops:secret\nbob:\n");
        for (Path file : List.of(noColon, twice, empty, noPassword)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        for (Path file : List.of(missing, noColon, twice, empty, noPassword)) {
            String message = assertThrows(ConfigurationException.class,
                    () -> TestGateway.start(Map.of("memcached.sasl_pwdb", file.toString()))).getMessage();
            assertTrue(message.startsWith("memcached.sasl_pwdb = " + file), message);
            assertTrue(!message.contains("other users may read"), message);
        }
    }

    @Test
    void aPasswordFileOtherUsersMayReadStopsTheStartAsSshRefusesSuchKeys() throws Exception {
        Path shared = directory.resolve("shared");
        Files.writeString(shared, "ops:secret\n");
        for (String mode : List.of("rw-r--r--", "rw-rw----", "rw-----w-")) {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString(mode));
            String message = assertThrows(ConfigurationException.class,
                    () -> TestGateway.start(Map.of("memcached.sasl_pwdb", shared.toString()))).getMessage();
            assertTrue(message.contains("other users may read or change it (" + mode + ")")
                    && message.contains("chmod 600 " + shared), message);
            assertTrue(!message.contains("secret\n") && !message.contains("ops:secret"), "no secret shown");
        }
    }
}
