package kvgate.memcached.couchbase;

import static kvgate.testing.HttpHeads.contentLength;
import static kvgate.testing.HttpHeads.readHead;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import kvgate.config.ConfigurationException;
import kvgate.testing.Ports;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The management port over real HTTP: the bucket's map a Couchbase SDK's waitUntilReady asks for, and what any other
 * request, or one without the credentials of a user of the password file, gets.
 */
@Tag("servers")
class ManagementEndpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path directory;
    private static TestGateway gateway;
    private static int mgmtPort;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        mgmtPort = Ports.free();
        gateway = TestGateway.start(TestGateway.with(
                TestGateway.passwordFile(directory, "Administrator:password\nalice:pass:word,=x\n"),
                "memcached.mgmt_enable", "true", "memcached.mgmt_port", Integer.toString(mgmtPort),
                "buckets", "default,travel%sample"));
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> send(int port, String method, String path, String authorization)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return send(mgmtPort, "GET", path, basic("Administrator", "password"));
    }

    @Test
    void aBucketsMapNamesBothPortsAndItsNodeHealthy() throws Exception {
        assertEquals(mgmtPort, gateway.gateway().port("management"));
        HttpResponse<String> answer = get("/pools/default/buckets/default");
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals("application/json", answer.headers().firstValue("content-type").orElse(""));
        JsonNode map = JSON.readTree(answer.body());
        assertEquals("default", map.get("name").asText());
        assertEquals(1, map.get("nodes").size());
        assertEquals("healthy", map.get("nodes").get(0).get("status").asText());
        assertEquals("$HOST:" + mgmtPort, map.get("nodes").get(0).get("hostname").asText());
        JsonNode services = map.get("nodesExt").get(0).get("services");
        assertEquals(gateway.port(), services.get("kv").asInt());
        assertEquals(mgmtPort, services.get("mgmt").asInt());
        // The memcached port's map is the same, but for the status.
        ((ObjectNode) map.get("nodes").get(0)).remove("status");
        assertEquals(JSON.readTree(new ClusterConfig(gateway.port(), mgmtPort).json("default")), map);

        // The name is URL-encoded, as the SDK sends it; a query changes nothing; another user of the file will do.
        HttpResponse<String> encoded = send(mgmtPort, "GET", "/pools/default/buckets/travel%25sample?basic_stats=true",
                basic("alice", "pass:word,=x"));
        assertEquals(200, encoded.statusCode(), encoded.body());
        assertEquals("travel%sample", JSON.readTree(encoded.body()).get("name").asText());

        HttpResponse<String> head = send(mgmtPort, "HEAD", "/pools/default/buckets/default",
                basic("Administrator", "password"));
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
        assertEquals(answer.body().length(), Long.parseLong(head.headers().firstValue("content-length").orElse("0")));
    }

    @Test
    void otherBucketsPathsAndMethodsAreRefused() throws Exception {
        for (String path : new String[] {"/pools/default/buckets/nobody", "/pools/default/buckets/Default",
                "/pools/default/buckets/", "/pools/default/buckets/default/", "/pools/default/buckets/default/stats",
                "/pools/default/buckets", "/pools", "/", "/metrics"}) {
            assertEquals(404, get(path).statusCode(), path);
        }
        HttpResponse<String> post = send(mgmtPort, "POST", "/pools/default/buckets/default",
                basic("Administrator", "password"));
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("allow").orElse(""));
        assertEquals(405, send(mgmtPort, "DELETE", "/pools/default/buckets/default",
                basic("Administrator", "password")).statusCode());
    }

    @Test
    void withoutAUserOfThePasswordFileEveryRequestIs401() throws Exception {
        for (String authorization : new String[] {null, basic("Administrator", "wrong"), basic("nobody", "password"),
                basic("alice", "pass"), "Basic not-base64!", "Bearer abc", basic("", "password"),
                "Basic " + Base64.getEncoder().encodeToString("Administrator".getBytes(StandardCharsets.UTF_8))}) {
            for (String path : new String[] {"/pools/default/buckets/default", "/pools/default/buckets/nobody",
                    "/"}) {
                HttpResponse<String> refused = send(mgmtPort, "GET", path, authorization);
                assertEquals(401, refused.statusCode(), authorization + " " + path);
                assertEquals("Basic realm=\"kvgate\"", refused.headers().firstValue("www-authenticate").orElse(""));
            }
        }
        assertEquals(200, send(mgmtPort, "GET", "/pools/default/buckets/default",
                "basic " + basic("Administrator", "password").substring(6)).statusCode(), "the scheme in any case");
    }

    @Test
    void aConnectionIsKeptAfterA401WithoutCredentialsAndClosedAfterAWrongPasswordGarbageIs400() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", mgmtPort)) {
            socket.setSoTimeout(5000);
            InputStream in = socket.getInputStream();
            socket.getOutputStream().write(("GET /pools/default/buckets/default HTTP/1.1\r\nHost: x\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String challenge = readHead(in);
            assertTrue(challenge.startsWith("HTTP/1.1 401"), challenge);
            in.readNBytes(contentLength(challenge));
            socket.getOutputStream().write(("GET /pools/default/buckets/default HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + basic("Administrator", "password") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answered = readHead(in);
            assertTrue(answered.startsWith("HTTP/1.1 200"), answered);
            in.readNBytes(contentLength(answered));
            socket.getOutputStream().write(("GET /pools/default/buckets/default HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + basic("Administrator", "guess") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String refused = readHead(in);
            assertTrue(refused.startsWith("HTTP/1.1 401"), refused);
            assertTrue(refused.toLowerCase().contains("connection: close"), refused);
            in.readNBytes(contentLength(refused));
            assertEquals(-1, in.read(), "closed after a wrong password");
        }
        for (String request : new String[] {"NOT HTTP AT ALL\r\n\r\n", "GET /pools/default/buckets/bad%zz HTTP/1.1\r\n"
                + "Host: x\r\nAuthorization: " + basic("Administrator", "password") + "\r\n\r\n"}) {
            try (Socket socket = new Socket("127.0.0.1", mgmtPort)) {
                socket.setSoTimeout(5000);
                socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                String head = readHead(socket.getInputStream());
                assertTrue(head.startsWith("HTTP/1.1 400"), request + ": " + head);
            }
        }
    }

    @Test
    void withoutAPasswordFileNoCredentialsAreAsked() throws Exception {
        int port = Ports.free();
        try (TestGateway open = TestGateway.start(Map.of("memcached.mgmt_enable", "true",
                "memcached.mgmt_port", Integer.toString(port), "memcached.advertised_port", "11210"))) {
            HttpResponse<String> answer = send(port, "GET", "/pools/default/buckets/default", null);
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals(11210, JSON.readTree(answer.body()).get("nodesExt").get(0).get("services").get("kv").asInt(),
                    "the advertised port, as the memcached port's map names it");
        }
    }

    @Test
    void aBucketWhoseManifestIsNotReadYetIsWarmingUp() throws Exception {
        int port = Ports.free();
        // No memcached server listens there: the bucket's manifest cannot be read, so its documents are not served.
        try (TestGateway unready = TestGateway.start(Map.of("backend", "memcached",
                "memcached.servers", "127.0.0.1:" + Ports.free(), "memcached.mgmt_enable", "true",
                "memcached.mgmt_port", Integer.toString(port)))) {
            HttpResponse<String> answer = send(port, "GET", "/pools/default/buckets/default", null);
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals("warmup", JSON.readTree(answer.body()).get("nodes").get(0).get("status").asText());
        }
    }

    @Test
    void theManagementPortNeedsTheMemcachedPort() {
        String message = assertThrows(ConfigurationException.class, () -> TestGateway.start(Map.of(
                "memcached.enable", "false", "memcached.mgmt_enable", "true"))).getMessage();
        assertTrue(message.contains("memcached.mgmt_enable") && message.contains("memcached.enable"), message);
    }
}
