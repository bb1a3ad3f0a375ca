package kvgate.server;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every write the gateway acknowledged is there after a restart, whether the stop was clean or a kill -9. */
class DurabilityTest {

    /** Pipelines {@code count} sets and waits for every acknowledgement; returns the highest CAS acknowledged. */
    private static long writeAcknowledged(BinaryClient c, String prefix, int count) throws Exception {
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            batch.write(frame(SET, storeExtras(i, 0), bytes(prefix + i), bytes("value-" + i), 0, i));
        }
        c.send(batch.toByteArray());
        long maxCas = 0;
        for (int i = 0; i < count; i++) {
            Response r = c.read();
            assertEquals(0, r.status());
            assertEquals(i, r.opaque());
            maxCas = Math.max(maxCas, r.cas());
        }
        return maxCas;
    }

    private static void assertAllPresent(BinaryClient c, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Response r = c.get(prefix + i);
            assertEquals(0, r.status(), "acknowledged item " + prefix + i + " was lost");
            assertEquals("value-" + i, r.valueText());
            assertEquals(i, r.flags());
        }
    }

    @Test
    void aCleanStopAndRestartKeepsEveryAcknowledgedWrite(@TempDir Path data) throws Exception {
        Map<String, String> settings = Map.of("local.path", data.toString());
        long casBefore;
        try (TestGateway gateway = TestGateway.start(settings); BinaryClient c = new BinaryClient(gateway.port())) {
            casBefore = writeAcknowledged(c, "clean-", 2000);
            c.set("counter", "41", 0, 0);
            c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("counter"), NONE, 0);
            c.call(APPEND, NONE, bytes("clean-0"), bytes("+tail"), 0);
            c.call(DELETE, NONE, bytes("clean-1"), NONE, 0);
            c.set("expiring", "x", 0, 3600);
        }
        try (TestGateway gateway = TestGateway.start(settings); BinaryClient c = new BinaryClient(gateway.port())) {
            for (int i = 2; i < 2000; i++) {
                assertEquals("value-" + i, c.get("clean-" + i).valueText());
            }
            assertEquals("value-0+tail", c.get("clean-0").valueText());
            assertEquals(0x0001, c.get("clean-1").status(), "a delete is as durable as a set");
            assertEquals("42", c.get("counter").valueText());
            assertEquals(0, c.get("expiring").status());
            assertTrue(c.set("after-restart", "x", 0, 0).cas() > casBefore, "CAS values never repeat after a restart");
        }
    }

    @Test
    void aKilledGatewayLosesNoAcknowledgedWrite(@TempDir Path data) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "kvgate.server.GatewayMain",
                "--plugins.dir=" + TestGateway.pluginsDirectory().toAbsolutePath(),
                "--local.path=" + data,
                "--memcached.bind=127.0.0.1",
                "--memcached.port=" + port,
                "--io_threads=2"));
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(data.resolve("gateway.log").toFile())
                .start();
        try {
            awaitPort(port, child);
            try (BinaryClient c = new BinaryClient(port)) {
                writeAcknowledged(c, "killed-", 3000);
            }
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no final commit
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        try (TestGateway gateway = TestGateway.start(Map.of("local.path", data.toString()));
             BinaryClient c = new BinaryClient(gateway.port())) {
            assertAllPresent(c, "killed-", 3000);
        }
    }

    @Test
    void expiredItemsAreNeverReturnedAndArePurgedInTheBackground() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("local.purge_interval_ms", "100"));
             BinaryClient c = new BinaryClient(gateway.port())) {
            for (int i = 0; i < 50; i++) {
                c.set("purged-" + i, "x", 0, 1);
            }
            assertEquals("50", itemCount(c));
            Thread.sleep(1100);
            assertEquals(0x0001, c.get("purged-7").status());
            long deadline = System.currentTimeMillis() + 5000;
            while (!itemCount(c).equals("0") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals("0", itemCount(c), "expired items still held after purging");
        }
    }

    private static String itemCount(BinaryClient c) throws Exception {
        c.send(frame(STAT, NONE, NONE, NONE, 0, 1));
        String items = null;
        while (true) {
            Response r = c.read();
            if (r.key().length == 0) {
                return items;
            }
            if (r.keyText().equals("curr_items")) {
                items = r.valueText();
            }
        }
    }

    private static void awaitPort(int port, Process child) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            assertTrue(child.isAlive(), "the gateway process exited during start-up");
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (java.io.IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("the gateway process did not listen within 60 s");
    }
}
