package kvgate.load;

import static kvgate.testing.BinaryClient.GET;
import static kvgate.testing.BinaryClient.NONE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.metrics.GatewayMetrics;
import kvgate.metrics.Verb;
import kvgate.testing.BinaryClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.MpdbClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load generator against a real gateway (and memcached itself), each protocol for half a second: requests are
 * answered without errors, the gateway really served them (its operation meters grew by at least as much), and
 * what the generator stored is there to read with the tests' own clients.
 */
@Tag("servers")
class LoadGeneratorTest {
    private static final int KEYS = 500;
    private static TestGateway gateway;
    private static MemcachedServers memcached;

    @BeforeAll
    static void start() throws Exception {
        // Transaction mode, for the locks' load; the other okuyama loads run with it too.
        gateway = TestGateway.start(java.util.Map.of("okuyama.transactions", "true"));
        memcached = MemcachedServers.start(1);
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.close();
        memcached.close();
    }

    private static Report run(String protocol, int port, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--protocol=" + protocol, "--port=" + port, "--connections=4",
                "--depth=8", "--seconds=0.5", "--warmup=0", "--keys=" + KEYS, "--threads=2"));
        args.addAll(List.of(more));
        Report report = LoadRun.run(LoadOptions.parse(args.toArray(String[]::new)));
        assertTrue(report.ops() > 0, report::summary);
        assertEquals(0, report.errors(), report::summary);
        return report;
    }

    /** Runs as {@link #run} and checks that the gateway's meters of {@code verbs} grew by at least the ops. */
    private static Report runServed(List<Verb> verbs, String protocol, int port, String... more) throws Exception {
        long before = served(verbs.toArray(Verb[]::new));
        Report report = run(protocol, port, more);
        assertTrue(served(verbs.toArray(Verb[]::new)) - before >= report.ops(), report::summary);
        return report;
    }

    /** Meters of the verbs given, summed. */
    private static long served(Verb... verbs) {
        GatewayMetrics metrics = gateway.gateway().metrics();
        long sum = 0;
        for (Verb verb : verbs) {
            sum += metrics.count(verb);
        }
        return sum;
    }

    private static byte[] key(long index) {
        return new KeySpace(32).bytes(index);
    }

    private static byte[] value() {
        return new Workload(LoadOptions.parse("--port=1", "--keys=" + KEYS)).value();
    }

    @Test
    void aSeriesRunsEveryTargetEachRoundInAlternatingOrderAndReportsEachRunsTargetAndTime() throws Exception {
        Series series = Series.parse("--protocol=binary", "--port=" + gateway.port() + "," + memcached.port(0),
                "--watch=1/2,3;4", "--rounds=3", "--warmup=1", "--rewarm=0", "--connections=2", "--depth=4",
                "--seconds=0.2", "--keys=" + KEYS, "--rate=2000", "--batch=4");
        List<Series.Run> runs = series.runs();
        int[] ports = {gateway.port(), memcached.port(0)};
        int[][] order = {{0, 1}, {1, 0}, {0, 1}};
        assertEquals(6, runs.size());
        for (int i = 0; i < runs.size(); i++) {
            Series.Run run = runs.get(i);
            int target = order[i / 2][i % 2];
            assertEquals(i / 2 + 1, run.round());
            assertEquals(ports[target], run.options().port());
            assertEquals(target == 0 ? List.of("1/2", "3") : List.of("4"), run.options().watch());
            assertEquals(i == 0 ? 1.0 : 0.0, run.options().warmup(), "only the first run warms up in full");
            assertEquals(i < 2, run.options().prefill(), "each target's keys are stored in its first run only");
            assertEquals(2000, run.options().rate());
        }
        // The runs of a series share the event loops, which outlive each run.
        EventLoopGroup group = LoadRun.newGroup(1);
        try {
            long before = System.currentTimeMillis();
            for (Series.Run run : runs.subList(0, 4)) {
                Report report = LoadRun.run(run.options(), group);
                assertEquals(0, report.errors(), report::summary);
                assertTrue(report.ops() > 0, report::summary);
                assertEquals(0, report.misses(), "the keys stored in the target's first run are there in the next");
                assertEquals(run.options().port(), report.port());
                assertTrue(report.fromMillis() >= before && report.fromMillis() <= System.currentTimeMillis(),
                        "the measured period's start by the wall clock");
                assertTrue(report.json().contains("\"port\":" + run.options().port() + ","), report.json());
                // A request leaves at its intended time or later: counted from its send, its latency is no longer.
                assertTrue(report.sentP99() <= report.p99() && report.sentP999() <= report.p999(), report.json());
                assertTrue(report.sentP99() > 0, report.json());
                before = report.fromMillis();
            }
            assertTrue(!group.isShuttingDown(), "a run leaves the shared event loops running");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aSeriesRefusesWhatItCannotRun() {
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1,2", "--watch=3"),
                "a watch list for one of two targets");
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1,2", "--fill=10"),
                "a fill of two targets");
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1", "--rounds=0"));
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1", "--rewarm=-1"));
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1,2", "--nonsense=1"));
        assertThrows(IllegalArgumentException.class, () -> Series.parse("--port=1,x"));
        Series one = Series.parse("--port=7", "--warmup=3");
        assertEquals(1, one.runs().size());
        assertEquals(3.0, one.runs().get(0).options().warmup());
    }

    @Test
    void binaryLoadIsServedByTheGatewayAndItsValuesAreStored() throws Exception {
        long before = served(Verb.GET, Verb.SET);
        Report report = run("binary", gateway.port());
        assertTrue(served(Verb.GET, Verb.SET) - before >= report.ops() + KEYS, "the fill and the run reached it");
        assertEquals(0, report.misses(), "every key was filled before the run");
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertArrayEquals(value(), client.call(GET, NONE, key(KEYS - 1), NONE, 0).value());
        }
    }

    /** --socket: the same load over a Unix domain socket, the gateway's own (memcached.socket) and memcached's. */
    @Test
    void binaryLoadRunsOverUnixSocketsToTheGatewayAndToMemcached(@TempDir Path directory) throws Exception {
        Path socket = directory.resolve("gateway.sock");
        try (TestGateway onSocket = TestGateway.start(Map.of("memcached.socket", socket.toString()));
             MemcachedServers memcachedOnSocket = MemcachedServers.startOnUnixSockets(directory, 1)) {
            Path memcachedSocket = directory.resolve("memcached-0.sock");
            Series series = Series.parse("--protocol=binary", "--socket=" + socket + "," + memcachedSocket,
                    "--connections=4", "--depth=8", "--seconds=0.3", "--warmup=0", "--keys=" + KEYS, "--threads=2");
            List<Path> sockets = List.of(socket, memcachedSocket);
            for (int target = 0; target < 2; target++) {
                LoadOptions options = series.runs().get(target).options();
                assertEquals(sockets.get(target).toString(), options.socket());
                Report report = LoadRun.run(options);
                assertTrue(report.ops() > 0, report::summary);
                assertEquals(0, report.errors(), report::summary);
                assertTrue(report.json().contains("\"port\":0,\"socket\":\"" + sockets.get(target) + "\","),
                        report.json());
            }
            try (BinaryClient client = new BinaryClient(onSocket.port())) {
                assertArrayEquals(value(), client.call(GET, NONE, key(KEYS - 1), NONE, 0).value(),
                        "the gateway's keys were stored through its socket");
            }
            try (BinaryClient client = memcachedOnSocket.client(0)) {
                assertArrayEquals(value(), client.call(GET, NONE, key(7), NONE, 0).value());
            }
        }
        for (String[] bad : new String[][] {{"--socket=/a.sock", "--port=11211"}, {"--socket=a.sock"},
                {"--socket=/a.sock", "--protocol=mpdb"}}) {
            assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse(bad), String.join(" ", bad));
        }
    }

    @Test
    void binaryLoadDrivesMemcachedItself() throws Exception {
        Report report = run("binary", memcached.port(0), "--get-ratio=0.5");
        assertTrue(report.reads() > 0 && report.reads() < report.ops(), report::summary);
        try (BinaryClient client = new BinaryClient(memcached.port(0))) {
            assertArrayEquals(value(), client.call(GET, NONE, key(7), NONE, 0).value());
        }
    }

    @Test
    void keysMadeUpFrontAndKeysMadeAsWrittenAreTheSameBytes() {
        KeySpace few = new KeySpace(32, 1_000);
        KeySpace many = new KeySpace(32, 10_000_000); // too many to make up front: each made as it is written
        for (long index : new long[] {0, 7, 999, 1_000, 123_456}) {
            ByteBuf made = Unpooled.buffer();
            ByteBuf written = Unpooled.buffer();
            try {
                few.write(made, index);
                many.write(written, index);
                assertArrayEquals(new KeySpace(32).bytes(index), ByteBufUtil.getBytes(made), "key " + index);
                assertArrayEquals(new KeySpace(32).bytes(index), ByteBufUtil.getBytes(written), "key " + index);
            } finally {
                made.release();
                written.release();
            }
        }
        assertEquals("load:" + "0".repeat(21) + "123456", new String(new KeySpace(32).bytes(123_456),
                StandardCharsets.US_ASCII), "a prefix and the zero-padded index");
    }

    @Test
    void collectionsLoadSetsItsManifestAndStoresInItsCollections() throws Exception {
        // Keys of their own length, so that none is one the other tests stored in the default collection.
        runServed(List.of(Verb.GET, Verb.SET), "collections", gateway.port(), "--collections=3", "--key-size=40");
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            client.hello(BinaryClient.COLLECTIONS);
            byte[] plain = new KeySpace(40).bytes(4);
            byte[] inCollection = new byte[plain.length + 1];
            inCollection[0] = 8 + 4 % 3;  // key 4 lives in the collection with id 8 + 4 mod 3
            System.arraycopy(plain, 0, inCollection, 1, plain.length);
            assertArrayEquals(value(), client.call(GET, NONE, inCollection, NONE, 0).value());
            inCollection[0] = 0;
            assertEquals(0x0001, client.call(GET, NONE, inCollection, NONE, 0).status(),
                    "nothing in the default collection");
        }
    }

    @Test
    void counterLoadAcquiresAndReleasesEveryName() throws Exception {
        Report report = runServed(List.of(Verb.ACQUIRE, Verb.RELEASE), "counter", gateway.counterPort());
        assertEquals(0, report.reads());
    }

    @Test
    void okuyamaLoadMixesSetsGetsAndMultiGets() throws Exception {
        Report report = runServed(List.of(Verb.GET, Verb.SET), "okuyama", gateway.okuyamaPort(), "--multi-keys=5");
        assertEquals(0, report.misses());
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String key = java.util.Base64.getEncoder().encodeToString(key(3));
            String stored = java.util.Base64.getEncoder().encodeToString(value());
            assertEquals("2,true," + stored, client.call("2," + key));
        }
    }

    @Test
    void okuyamaListLoadPushesAndPopsListsTheFillMade() throws Exception {
        Report report = run("okuyama-lists", gateway.okuyamaPort());
        // Each connection pops what it pushed before (others may have taken it: a miss, not an error).
        assertTrue(report.reads() > 0 && report.reads() > report.misses(), report::summary);
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String list = java.util.Base64.getEncoder().encodeToString(key(7));
            assertTrue(client.call("57," + list + ",0").startsWith("57,true,"), "the fill made the lists");
        }
    }

    @Test
    void okuyamaLockLoadLocksAndReleasesInATransactionEach() throws Exception {
        Report report = run("okuyama-locks", gateway.okuyamaPort());
        assertTrue(report.ops() > report.misses(), report::summary);
        Thread.sleep(1100); // a lock whose release the run's end cut off lasts its one second
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            // Every lock taken was released: another transaction takes any key at once.
            String code = client.call("37").substring("37,true,".length());
            for (int key = 0; key < KEYS; key += 50) {
                String name = java.util.Base64.getEncoder().encodeToString(key(key));
                assertEquals("30,true," + code, client.call("30," + name + "," + code + ",1,0"), report.summary());
                assertEquals("31,true," + code, client.call("31," + name + "," + code));
            }
        }
    }

    @Test
    void mpdbLoadInsertsAndGetsOverUdp() throws Exception {
        Report report = runServed(List.of(Verb.GET, Verb.SET), "mpdb", gateway.mpdbPort());
        assertEquals(0, report.misses());
        try (MpdbClient client = new MpdbClient(gateway.mpdbPort())) {
            String key = new String(key(11), java.nio.charset.StandardCharsets.US_ASCII);
            MpdbClient.Reply reply = client.call(MpdbClient.get(1, key));
            assertEquals(new String(value(), java.nio.charset.StandardCharsets.US_ASCII),
                    reply.result().get("global." + key).value());
        }
    }

    @Test
    void fixedRateRunSendsAboutItsRate() throws Exception {
        // A low rate: the tests' paranoid leak detection makes every buffer expensive, in the generator too.
        Report report = run("binary", gateway.port(), "--rate=1000", "--seconds=1");
        assertEquals("open", report.mode());
        assertEquals(1000, report.opsPerSecond(), 100, report::summary);
    }

    @Test
    void aFixedRateRunReportsHowLateTheGeneratorGotToItsBatches() throws Exception {
        Report report = run("binary", gateway.port(), "--rate=1000", "--seconds=1");
        // A pacer wakes on a timer, so never before a batch's time; a generator that keeps up, well within the run.
        assertTrue(report.lateMax() > 0 && report.lateMax() < 500_000, report::summary);
        assertTrue(report.json().contains(String.format(Locale.ROOT, "\"late_max_us\":%.1f,",
                report.lateMax())), report::json);
        assertTrue(report.summary().contains("sends up to"), report::summary);
    }

    @Test
    void anOpenLoopRunIsMeasuredOnlyOnceTheGeneratorHasCaughtUpWithItsSchedule() throws Exception {
        // Requests held for 600 ms from 300 ms into the 0.5 s warm-up: at its end the generator is far behind its
        // schedule, its pipelines full and requests due waiting. It must catch up before it measures, or the
        // warm-up's held requests, answered after the reset, would count as latencies of some 600 ms.
        try (StallingProxy proxy = new StallingProxy(gateway.port(), 300, 600)) {
            Report report = run("binary", proxy.port(), "--rate=1000", "--seconds=1", "--warmup=0.5",
                    "--prefill=false");
            assertTrue(report.catchUp() >= 200, report::summary);
            assertTrue(report.max() < 200_000, report::summary);
            assertTrue(report.json().contains(String.format(Locale.ROOT, "\"catch_up_ms\":%.1f,",
                    report.catchUp())), report::json);
        }
    }

    @Test
    void fixedRateRunInBatchesCountsRequestsNotBatches() throws Exception {
        Report report = run("binary", gateway.port(), "--rate=1000", "--seconds=1", "--depth=8", "--batch=8");
        assertEquals(1000, report.opsPerSecond(), 100, report::summary);
        assertEquals(0, report.unsent(), report::summary);
    }

    @Test
    void aBatchMustFitThePipelineAndNeedsARate() {
        assertThrows(IllegalArgumentException.class,
                () -> LoadOptions.parse("--port=1", "--rate=100", "--depth=4", "--batch=5"));
        assertThrows(IllegalArgumentException.class,
                () -> LoadOptions.parse("--port=1", "--rate=100", "--depth=4", "--batch=0"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--port=1", "--depth=4", "--batch=2"));
        assertEquals(4, LoadOptions.parse("--port=1", "--rate=100", "--depth=4", "--batch=4").batch());
    }

    @Test
    void theWarmUpsRepliesAreNotCountedInTheMeasuredPeriod() throws Exception {
        // Replies are recorded all along; the measured period is what lies between the reset and the tally that
        // bound it. A second of warm-up at the same rate, counted by mistake, would double the ops.
        Report report = run("binary", gateway.port(), "--rate=1000", "--seconds=1", "--warmup=1");
        assertEquals(1000, report.ops(), 150, report::summary);
        // The reads are tallied over the same period: nine in ten of the ops, not of the ops and the warm-up's.
        assertEquals(0.9, (double) report.reads() / report.ops(), 0.05, report::summary);
    }

    @Test
    void fillStoresTheItemsAskedAndStops() throws Exception {
        Report report = LoadRun.run(LoadOptions.parse("--protocol=binary", "--port=" + memcached.port(0),
                "--fill=2000", "--connections=2", "--depth=16", "--key-size=20"));
        assertEquals("fill", report.mode());
        assertEquals(2000, report.ops());
        assertEquals(0, report.errors());
        try (BinaryClient client = new BinaryClient(memcached.port(0))) {
            assertArrayEquals(value(), client.call(GET, NONE, new KeySpace(20).bytes(1999), NONE, 0).value());
        }
    }

    @Test
    void aWrongReplyIsAnErrorNotASuccess() throws Exception {
        // The memcached listener answers counter frames with memcached error replies: none may count as a success.
        Report report = LoadRun.run(LoadOptions.parse("--protocol=counter", "--port=" + gateway.port(),
                "--connections=1", "--seconds=0.3", "--warmup=0", "--timeout-ms=500"));
        assertEquals(0, report.ops(), report::summary);
        assertTrue(report.errors() > 0, report::summary);
    }

    @Test
    void watchedProcessesAndThreadsHaveTheirOwnCpu() throws Exception {
        // "PID/task/TID" of the thread that reads it: this test's, which waits for the run and so uses little CPU.
        String[] self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString().split("/");
        String process = self[0];
        String thread = process + "/" + self[2];
        // The gateway serves the run in this process: its CPU shows. A thread that does not exist has none.
        Report report = run("binary", gateway.port(), "--watch=" + process + "," + thread + "," + process + "/0");
        List<Double> cpu = report.watchedCpu();
        assertTrue(cpu.get(0) > 0, report::summary);
        assertTrue(cpu.get(1) >= 0 && cpu.get(1) < cpu.get(0), "one thread uses less than the process: " + cpu);
        assertEquals(-1, cpu.get(2), "no thread 0");
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--port=1", "--watch=12/x"));
    }

    /**
     * A loopback proxy to a server that holds what clients send for {@code holdMillis}, starting {@code afterMillis}
     * after the first byte it sees: a server that stops answering for a while, with no connection lost.
     */
    private static final class StallingProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final List<Socket> sockets = new ArrayList<>();
        private volatile long firstByte;

        StallingProxy(int serverPort, long afterMillis, long holdMillis) throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket client = listener.accept();
                        Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                        synchronized (sockets) {
                            sockets.add(client);
                            sockets.add(server);
                        }
                        pump(client, server, afterMillis, holdMillis);
                        pump(server, client, -1, 0);
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, "stalling-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        /** Copies {@code from} to {@code to}; with {@code afterMillis} of 0 or more, holds the copy as described. */
        private void pump(Socket from, Socket to, long afterMillis, long holdMillis) {
            Thread pump = new Thread(() -> {
                byte[] buffer = new byte[16384];
                try {
                    int n;
                    while ((n = from.getInputStream().read(buffer)) > 0) {
                        if (afterMillis >= 0) {
                            long now = System.nanoTime();
                            synchronized (this) {
                                if (firstByte == 0) {
                                    firstByte = now;
                                }
                            }
                            long holdFrom = firstByte + afterMillis * 1_000_000;
                            long holdUntil = holdFrom + holdMillis * 1_000_000;
                            if (now >= holdFrom && now < holdUntil) {
                                Thread.sleep((holdUntil - now) / 1_000_000 + 1);
                            }
                        }
                        to.getOutputStream().write(buffer, 0, n);
                    }
                } catch (IOException | InterruptedException e) {
                    // a side closed: the other is closed with the proxy
                }
            }, "stalling-proxy-pump");
            pump.setDaemon(true);
            pump.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            synchronized (sockets) {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
        }
    }
}
