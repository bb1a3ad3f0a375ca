package kvgate.mpdb;

import static kvgate.testing.MpdbClient.integer;
import static kvgate.testing.MpdbClient.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kvgate.testing.FuzzSeeds;
import kvgate.testing.MpdbClient;
import kvgate.testing.MpdbClient.Raw;
import kvgate.testing.MpdbClient.Reply;
import kvgate.testing.MpdbClient.Typed;
import kvgate.testing.Mutator;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded mutation fuzzing of the MPDB front end over real UDP sockets, each seed from a client address of its own.
 *
 * <p>Even seeds send well-formed MsgPack only, in groups that fit the echo window, some datagrams out of order or
 * twice, some of them requests the protocol refuses (an unknown oper, a value of a type MPDB does not store, a field
 * of the wrong type or missing, a second value after the map, a datagram over {@code mpdb.max_datagram}, echo tag
 * 0) and one of exactly the largest size: every tag must get one reply, in which a refused request has an error and
 * no result, and every other request the answer a model of the store predicts; a resent datagram must get the same
 * reply again. Odd seeds send broken datagrams (bytes flipped, cut, spliced, garbage, MsgPack lengths and echo tags
 * set to extremes): whatever comes back must be a reply of the protocol. After every seed a fresh client must
 * insert a value and get it back.
 */
class MutatedInputTest {
    private static final int SEEDS = 200;
    private static final int MAX_DATAGRAM = 1400;
    /** Below mpdb.window (10), so a group sent at once is never beyond the window. */
    private static final int GROUP = 8;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        // A short server timeout: a gap a broken datagram leaves in the echo order holds the rest up only briefly.
        gateway = TestGateway.start(Map.of("mpdb.max_datagram", Integer.toString(MAX_DATAGRAM),
                "mpdb.server_timeout_ms", "100"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /**
     * A datagram as sent. {@code expected} is its result as the model predicts it (null for none), in the order the
     * reply must list it when {@code ordered} (the keys a get asked for, as it asked).
     */
    private record Datagram(long echo, byte[] bytes, boolean refused, Map<String, Object> expected, boolean ordered) {
        Datagram(long echo, byte[] bytes, boolean refused, Map<String, Object> expected) {
            this(echo, bytes, refused, expected, false);
        }
    }

    @TestFactory
    Stream<DynamicTest> mutatedDatagrams() {
        return FuzzSeeds.tests(SEEDS, Duration.ofSeconds(30), seed -> {
            Mutator m = new Mutator(seed);
            try (MpdbClient client = client(1, seed)) {
                if (seed % 2 == 0) {
                    sendIntact(m, seed, client);
                    assertFreshClientServes(seed);
                } else {
                    sendBroken(m, seed, client);
                    assertFreshClientServes(seed);
                    drainAndCheck(client);
                }
            }
        });
    }

    /**
     * A client from an address of its own: 127.{@code role}.x.y, x.y the seed. The gateway keeps a client's order
     * for two minutes after its last datagram, so a client on a port some earlier seed's client had would be taken
     * for it, and its tags for resends of that client's.
     */
    private static MpdbClient client(int role, long seed) throws IOException {
        InetAddress local = InetAddress.getByAddress(new byte[] {127, (byte) role, (byte) (seed >> 8), (byte) seed});
        return new MpdbClient(local, InetAddress.getLoopbackAddress(), gateway.mpdbPort());
    }

    // --- well-formed datagrams ---

    /** What the seed has stored so far, as the gateway must have it: collection pairs and the node's pairs. */
    private static final class Model {
        final String collection;
        final long node;
        final Map<String, Object> pairs = new LinkedHashMap<>();
        final Map<String, Object> persisted = new HashMap<>();

        Model(long seed) {
            collection = "c" + seed;
            node = 1000 + seed;
        }
    }

    private static void sendIntact(Mutator m, long seed, MpdbClient client) throws IOException {
        Model model = new Model(seed);
        Map<Long, Reply> first = new HashMap<>();
        long echo = 1;
        int groups = m.between(1, 3);
        for (int group = 0; group < groups; group++) {
            List<Datagram> datagrams = new ArrayList<>();
            int size = m.between(2, GROUP);
            for (int i = 0; i < size; i++, echo++) {
                datagrams.add(m.chance(35) ? refused(m, model, echo) : valid(m, model, echo));
            }
            List<Datagram> sent = new ArrayList<>(datagrams);
            m.shuffleFrames(sent, 15, false); // resent at once, or swapped: never lost
            int immediate = 0;
            for (Datagram datagram : sent) {
                client.send(datagram.bytes());
                if (m.chance(10)) {
                    // Tag 0 cannot take a place in the order: answered at once with an error.
                    client.send(request("echo", 0L, "oper", "GET", "keys", List.of(model.collection + ".k0")));
                    immediate++;
                }
            }
            Map<Long, Datagram> byEcho = new HashMap<>();
            datagrams.forEach(datagram -> byEcho.put(datagram.echo(), datagram));
            int answered = 0;
            while (answered < datagrams.size() || immediate > 0) {
                Reply reply = client.receive(3000);
                assertNotNull(reply, "no reply within 3 s; still waiting for " + (datagrams.size() - answered)
                        + " tags and " + immediate + " tag-0 errors");
                assertEquals("RESPONSE", reply.oper());
                if (reply.echo() == 0) {
                    assertFalse(reply.error().isEmpty(), "tag 0 is an error");
                    assertNull(reply.result());
                    immediate--;
                    continue;
                }
                Reply earlier = first.get(reply.echo());
                if (earlier != null) {
                    assertEquals(earlier, reply, "a resent datagram gets the reply it got before");
                    continue;
                }
                Datagram datagram = byEcho.get(reply.echo());
                assertNotNull(datagram, "a reply to a tag not sent: " + reply);
                check(datagram, reply);
                first.put(reply.echo(), reply);
                answered++;
            }
            // Sent again once answered: the reply comes from the gateway's cache, identical.
            Datagram again = m.pick(datagrams);
            client.send(again.bytes());
            Reply replayed;
            do {
                // Replays of datagrams the group sent twice may still come first.
                replayed = client.receive(3000);
                assertNotNull(replayed, "no reply to the resent tag " + again.echo());
                assertEquals(first.get(replayed.echo()), replayed, "a resent datagram gets the reply it got before");
            } while (replayed.echo() != again.echo());
        }
    }

    private static void check(Datagram datagram, Reply reply) {
        String what = "reply to tag " + datagram.echo() + ": " + reply;
        if (datagram.refused()) {
            assertFalse(reply.error().isEmpty(), "a refused request has an error, " + what);
            assertNull(reply.result(), "a refused request has no result, " + what);
            return;
        }
        assertEquals("", reply.error(), what);
        if (datagram.expected() == null) {
            assertNull(reply.result(), what);
            return;
        }
        assertNotNull(reply.result(), what);
        Map<String, Object> values = new LinkedHashMap<>();
        for (Map.Entry<String, Typed> entry : reply.result().entrySet()) {
            values.put(entry.getKey(), entry.getValue().value());
        }
        assertEquals(datagram.expected(), values, what);
        if (datagram.ordered()) {
            assertEquals(List.copyOf(datagram.expected().keySet()), List.copyOf(values.keySet()), "in order, " + what);
        }
    }

    /** A request the protocol carries out, and what the model says it answers (null: no pairs). */
    private static Datagram valid(Mutator m, Model model, long echo) {
        switch (m.below(7)) {
            case 0, 1 -> {
                Map<String, Object> data = new LinkedHashMap<>();
                int pairs = m.below(4);
                for (int i = 0; i < pairs; i++) {
                    String key = model.collection + m.pick(".k0", ".k1", ".k2", ".n.k3");
                    Object[] value = value(m);
                    data.put(key, value[0]);
                    model.pairs.put(key, value[1]);
                }
                return new Datagram(echo, insert(echo, data), false, null);
            }
            case 2 -> {
                List<String> keys = distinct(m, model.collection + ".k0", model.collection + ".k1",
                        model.collection + ".n.k3", model.collection + ".missing");
                Map<String, Object> expected = new LinkedHashMap<>();
                keys.forEach(key -> expected.put(key, model.pairs.get(key)));
                return new Datagram(echo, request("echo", echo, "oper", "GET", "nodeid", 1L, "keys", keys), false,
                        expected, true);
            }
            case 3 -> {
                Map<String, Object> data = new LinkedHashMap<>();
                String key = m.pick("k0", "cfg.k1");
                Object[] value = value(m);
                data.put(key, value[0]);
                model.persisted.put(key, value[1]);
                return new Datagram(echo, request("echo", echo, "oper", "PERSIST", "nodeid", model.node, "data",
                        data), false, null);
            }
            case 4 -> {
                List<String> keys = distinct(m, "k0", "cfg.k1", "nothing");
                Map<String, Object> expected = new LinkedHashMap<>();
                keys.forEach(key -> expected.put(key, model.persisted.get(key)));
                return new Datagram(echo, request("echo", echo, "oper", "GETPERSIST", "nodeid", model.node, "keys",
                        keys), false, expected, true);
            }
            case 5 -> {
                byte[] bytes = request("echo", echo, "oper", "GETBUCKET", "nodeid", 1L, "collection",
                        model.collection);
                // An empty collection is answered with an error: "Bucket does not exist".
                return model.pairs.isEmpty() ? new Datagram(echo, bytes, true, null)
                        : new Datagram(echo, bytes, false, new HashMap<>(model.pairs));
            }
            default -> {
                // Exactly the largest datagram taken, into a collection nothing reads back.
                return new Datagram(echo, sized(echo, "b" + model.collection, MAX_DATAGRAM), false, null);
            }
        }
    }

    /** The value to send (as {@link MpdbClient#request} packs it) and the one the reply must hold. */
    private static Object[] value(Mutator m) {
        long number = m.between(-100_000, 100_000);
        return switch (m.below(4)) {
            case 0 -> {
                String text = m.text(m.between(0, 20));
                yield new Object[] {text, text};
            }
            case 1 -> new Object[] {number, BigInteger.valueOf(number)};
            case 2 -> {
                long small = Math.abs(number) % 65536;
                yield new Object[] {integer(0xcd, small), BigInteger.valueOf(small)}; // uint16 whatever it holds
            }
            default -> {
                String text = "üñí " + m.text(4);
                yield new Object[] {text, text};
            }
        };
    }

    private static byte[] insert(long echo, Map<String, Object> data) {
        return request("echo", echo, "oper", "INSERT", "nodeid", 1L, "data", data);
    }

    /** Some of {@code keys}, at least one, each once. */
    private static List<String> distinct(Mutator m, String... keys) {
        List<String> chosen = new ArrayList<>();
        for (String key : keys) {
            if (m.chance(60)) {
                chosen.add(key);
            }
        }
        if (chosen.isEmpty()) {
            chosen.add(keys[0]);
        }
        return chosen;
    }

    /** An INSERT of one string into {@code collection}, padded to exactly {@code length} bytes. */
    private static byte[] sized(long echo, String collection, int length) {
        String key = collection + ".big";
        int padding = length - 100;
        byte[] bytes = request("echo", echo, "oper", "INSERT", "data", Map.of(key, "x".repeat(padding)));
        padding += length - bytes.length;
        bytes = request("echo", echo, "oper", "INSERT", "data", Map.of(key, "x".repeat(padding)));
        if (bytes.length != length) {
            throw new IllegalStateException("padded to " + bytes.length + " bytes, not " + length);
        }
        return bytes;
    }

    /** A request the protocol refuses with an error reply: its echo tag reads, the rest is wrong. */
    private static Datagram refused(Mutator m, Model model, long echo) {
        String key = model.collection + ".k0";
        Object bad = m.pick(new Raw(new byte[] {(byte) 0xcb, 0x40, 0, 0, 0, 0, 0, 0, 0}), // a float
                new Raw(new byte[] {(byte) 0xc3}), // true
                new Raw(new byte[] {(byte) 0xc4, 1, 7}), // binary
                new Raw(new byte[] {(byte) 0xa2, (byte) 0xff, (byte) 0xfe}), // a string that is not UTF-8
                null, List.of("a"), Map.of("a", "b"));
        byte[] bytes = switch (m.below(12)) {
            case 0 -> request("echo", echo, "oper", m.pick("DELETE", "insert", "", "GETBUCKETS"), "nodeid", 1L,
                    "keys", List.of(key));
            case 1 -> request("echo", echo, "oper", 5L, "keys", List.of(key));
            case 2 -> request("echo", echo, "nodeid", 1L, "keys", List.of(key)); // no oper
            case 3 -> request("echo", echo, "oper", "INSERT", "nodeid", 1L, "data", m.pick(List.of(key), 5L, "x"));
            case 4 -> request("echo", echo, "oper", "INSERT", "nodeid", 1L, "data", mapOf(key, bad));
            case 5 -> request("echo", echo, "oper", "GET", "nodeid", 1L, "keys",
                    m.pick(key, List.of(key, 5L), mapOf(key, key)));
            case 6 -> request("echo", echo, "oper", "GETBUCKET", "nodeid", 1L, "collection",
                    m.pick(5L, null, "", "é".repeat(40)));
            case 7 -> request("echo", echo, "oper", m.pick("PERSIST", "GETPERSIST"), "nodeid",
                    m.pick(integer(0xd0, -1), "node", null), "data", Map.of("k", "v"), "keys", List.of("k"));
            case 8 -> request("echo", echo, "oper", m.pick("INSERT", "GET"), "nodeid", 1L, "data",
                    Map.of(m.pick("", model.collection + "."), "v"), "keys", List.of(m.pick("", model.collection
                            + ".")));
            case 9 -> Mutator.concat(List.of(valid(m, new Model(0), echo).bytes(), new byte[] {(byte) 0xc0}));
            case 10 -> sized(echo, "b" + model.collection, MAX_DATAGRAM + m.between(1, 200));
            default -> request("echo", echo, "oper", "GET", "nodeid", 1L); // no keys
        };
        return new Datagram(echo, bytes, true, null);
    }

    /** A one-entry map that may hold a null value (Map.of takes none). */
    private static Map<String, Object> mapOf(String key, Object value) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(key, value);
        return map;
    }

    // --- broken datagrams ---

    private static void sendBroken(Mutator m, long seed, MpdbClient client) throws IOException {
        Model model = new Model(seed);
        List<byte[]> datagrams = new ArrayList<>();
        int count = m.between(2, GROUP);
        for (int echo = 1; echo <= count; echo++) {
            byte[] bytes = valid(m, model, echo).bytes();
            datagrams.add(switch (m.below(8)) {
                case 0 -> m.flip(bytes, 0, bytes.length, 4);
                case 1 -> m.truncate(bytes);
                case 2 -> m.splice(bytes, m.pick(datagrams.isEmpty() ? List.of(bytes) : datagrams));
                case 3 -> m.insert(bytes, m.garbage(8));
                case 4 -> extremeLength(m, echo);
                case 5 -> extremeEcho(m);
                case 6 -> Mutator.concat(List.of(bytes, m.garbage(MAX_DATAGRAM))); // over the limit or near it
                default -> bytes;
            });
            if (m.chance(10)) {
                datagrams.add(m.garbage(m.pick(1, 8, 64)));
            }
        }
        m.shuffleFrames(datagrams, 10, true);
        for (byte[] datagram : datagrams) {
            client.send(datagram);
        }
    }

    /**
     * A request whose MsgPack declares a length or count far past the datagram: a map, string, array or binary of
     * 32-bit length set to an edge value, at the top or in a field.
     */
    private static byte[] extremeLength(Mutator m, long echo) {
        long length = m.extremeLength(MAX_DATAGRAM, MAX_DATAGRAM + 1);
        int format = m.pick(0xdf, 0xdb, 0xdd, 0xc6); // map32, str32, array32, bin32
        byte[] header = Mutator.put(new byte[5], 0, 1, format);
        header = Mutator.put(header, 1, 4, length);
        if (m.chance(30)) {
            return Mutator.concat(List.of(header, request("echo", echo, "oper", "GET")));
        }
        Raw raw = new Raw(Mutator.concat(List.of(header, m.bytes(m.below(16)))));
        return request("echo", echo, "oper", m.pick(raw, "INSERT"), "nodeid", 1L, m.pick("data", "keys", "echo"),
                raw);
    }

    /** A well-formed request with an echo tag at or past the edges of what a tag may be. */
    private static byte[] extremeEcho(Mutator m) {
        Object echo = m.pick(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, BigInteger.ONE.shiftLeft(63),
                BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), "1", 11L);
        return request("echo", echo, "oper", "GET", "nodeid", 1L, "keys", List.of("k"));
    }

    /** Whatever came back to the broken client by now is a reply of the protocol. */
    private static void drainAndCheck(MpdbClient client) throws IOException {
        for (Reply reply = client.receive(20); reply != null; reply = client.receive(20)) {
            assertEquals("RESPONSE", reply.oper(), reply.toString());
            assertTrue(reply.echo() >= 0, "an echo tag: " + reply);
            assertNotNull(reply.error(), "an error field: " + reply);
            assertTrue(reply.error().isEmpty() || reply.result() == null, "an error has no result: " + reply);
        }
    }

    /** A new client inserts a value and gets it back: the gateway still serves. */
    private static void assertFreshClientServes(long seed) throws IOException {
        try (MpdbClient client = client(2, seed)) {
            String key = "fresh.k" + seed;
            String value = "value of seed " + seed;
            Reply stored = client.call(request("echo", 1L, "oper", "INSERT", "nodeid", 1L, "data",
                    Map.of(key, value)));
            assertEquals("", stored.error(), "insert from a fresh client");
            Reply read = client.call(request("echo", 2L, "oper", "GET", "nodeid", 1L, "keys", List.of(key)));
            assertEquals(2, read.echo());
            assertEquals("", read.error(), "get from a fresh client");
            assertEquals(value, read.result().get(key).value(), "the value read back");
        }
    }
}
