package kvgate.admin;

import static kvgate.testing.HttpHeads.contentLength;
import static kvgate.testing.HttpHeads.readHead;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kvgate.config.StartupException;
import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The metrics port over real HTTP: what Prometheus scrapes, and what any other request gets. */
class PrometheusEndpointTest {
    private static TestGateway gateway;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("metrics.enable", "true", "metrics.port", "0"));
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + gateway.gateway().port("metrics") + path);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code name{labels}} in a scrape, or -1 when it is not there. */
    private static double sample(String scrape, String nameAndLabels) {
        Matcher matcher = Pattern.compile("^" + Pattern.quote(nameAndLabels) + " (\\S+)$", Pattern.MULTILINE)
                .matcher(scrape);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : -1;
    }

    @Test
    void aScrapeCountsTheClientsOperationsBesideTheJvmsFigures() throws Exception {
        String setsOk = "kvgate_operations_total{status=\"ok\",verb=\"set\"}";
        double before = sample(get("/metrics").body(), setsOk);
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(0, client.set("m" + i, "v", 0, 0).status());
            }
        }
        HttpResponse<String> scrape = get("/metrics");
        assertEquals(200, scrape.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8",
                scrape.headers().firstValue("content-type").orElse(""));
        assertEquals(before + 3, sample(scrape.body(), setsOk), 0.0, scrape.body());
        assertTrue(sample(scrape.body(), "kvgate_connections_total{protocol=\"memcached\"}") >= 1);
        assertTrue(scrape.body().contains("# TYPE jvm_memory_used_bytes gauge"), "the JVM's own figures");
        assertTrue(scrape.body().contains("process_uptime_seconds"), "the process's own figures");
        // The backend's own figures, as the admin port's stats lists them, once each family, typed before its samples.
        Matcher items = Pattern.compile("^# TYPE kvgate_backend_curr_items untyped\nkvgate_backend_curr_items"
                + "\\{backend=\"([^\"]+)\"} (\\d+)$", Pattern.MULTILINE).matcher(scrape.body());
        assertTrue(items.find(), scrape.body());
        assertTrue(Long.parseLong(items.group(2)) >= 3, items.group());
        assertEquals(items.group(2), gateway.gateway().routes().instances().get(0).backend().stats().get("curr_items"));
        assertTrue(scrape.body().contains("kvgate_backend_limit_maxbytes{backend=\"" + items.group(1) + "\"}"));
    }

    @Test
    void otherPathsAndMethodsAreRefused() throws Exception {
        HttpResponse<String> missing = get("/");
        assertEquals(404, missing.statusCode());
        assertTrue(missing.body().contains("/metrics"));
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("allow").orElse(""));
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri("/metrics"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
        assertTrue(Long.parseLong(head.headers().firstValue("content-length").orElse("0")) > 1000,
                "a HEAD says how long the scrape is");
        assertEquals(200, get("/metrics?name[]=x").statusCode(), "a query does not change the path");
    }

    @Test
    void aScraperKeepsItsConnectionPipelinedRequestsAreAnsweredInOrderAndGarbageGetsBadRequest() throws Exception {
        int port = gateway.gateway().port("metrics");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int i = 0; i < 2; i++) {
                out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String head = readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
                int length = contentLength(head);
                assertEquals(length, in.readNBytes(length).length);
            }
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            // Pipelined: the scrape, read on the admin thread, is still answered before the 404 behind it.
            socket.getOutputStream().write(("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String first = readHead(in);
            assertTrue(first.startsWith("HTTP/1.1 200 OK"), first);
            in.readNBytes(contentLength(first));
            String second = readHead(in);
            assertTrue(second.startsWith("HTTP/1.1 404"), second);
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write("NOT HTTP AT ALL\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(5000);
            String head = readHead(socket.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 400"), head);
        }
    }

    @Test
    void aMetricsPortAlreadyTakenStopsTheStartNamingIt() {
        int taken = gateway.gateway().port("metrics");
        String message = assertThrows(StartupException.class, () -> TestGateway.start(Map.of("metrics.enable", "true",
                "metrics.port", Integer.toString(taken), "admin.enable", "true", "admin.port", "0"))).getMessage();
        assertTrue(message.contains("metrics") && message.contains(Integer.toString(taken)), message);
    }
}
