package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kvgate.testing.ClientConnection;
import kvgate.testing.FuzzSeeds;
import kvgate.testing.Mutator;
import kvgate.testing.TextClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded mutation fuzzing of the memcached text protocol over real sockets. Each seed builds a stream of valid
 * commands (every storage command with its data block, multi-key gets and touches, arithmetic, deletes, noreply
 * variants, stats, and the meta commands with their flags), and sends it in randomly split writes.
 *
 * <p>Even seeds send it intact: every command that asks for a reply gets exactly one (meta commands always do:
 * the stream has no {@code q} flag), in order, and the
 * {@code version} sent last is answered last. Odd seeds mutate it (bytes flipped, garbage and long lines inserted,
 * blocks cut or spliced): whatever comes back must be whole replies of the protocol, and once the client stops
 * sending the gateway must close the connection rather than wait. After every seed a fresh connection must store a
 * value and read it back. Every buffer runs through the paranoid leak detector.
 */
class TextMutatedInputTest {
    private static final int SEEDS = 200;
    private static final int MAX_ITEM = 4096;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("max_item_size", Integer.toString(MAX_ITEM)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A command as sent, and whether it asks for a reply. */
    private record Sent(byte[] bytes, boolean answered) {
    }

    private static Sent command(Mutator random) {
        String key = "k" + random.below(12);
        boolean noreply = random.chance(15);
        String tail = noreply ? " noreply" : "";
        return switch (random.below(15)) {
            case 12 -> {
                byte[] value = random.bytes(random.below(40));
                String line = "ms " + key + " " + value.length + random.pick("", " T100", " F7 k", " ME c", " MA O1",
                        " C0", " E42 c", " C1 I", " b") + "\r\n";
                if (line.endsWith(" b\r\n")) {
                    line = "ms " + Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.US_ASCII))
                            + " " + value.length + " b\r\n";
                }
                yield new Sent(Mutator.concat(List.of(line.getBytes(StandardCharsets.ISO_8859_1), value,
                        new byte[] {'\r', '\n'})), true);
            }
            case 13 -> new Sent((random.pick("mg ", "md ", "ma ") + key + random.pick("", " v", " s f t c k O2",
                    " T100 v", " N0 J5 D2 v", " MD", " C1", " T30 t v", " E7 c", " N30 R5 v", " I E9")
                    + "\r\n").getBytes(StandardCharsets.US_ASCII), true);
            case 14 -> new Sent("mn\r\n".getBytes(StandardCharsets.US_ASCII), true);
            case 0, 1, 2 -> {
                String verb = random.pick("set", "add", "replace", "append", "prepend", "cas");
                byte[] value = random.bytes(random.chance(5) ? MAX_ITEM + random.below(100) : random.below(40));
                String line = verb + " " + key + " " + random.below(100) + " " + random.pick("0", "100", "-1")
                        + " " + value.length + (verb.equals("cas") ? " " + random.below(3) : "") + tail + "\r\n";
                yield new Sent(Mutator.concat(List.of(line.getBytes(StandardCharsets.ISO_8859_1), value,
                        new byte[] {'\r', '\n'})), !noreply);
            }
            case 3, 4 -> {
                StringBuilder line = new StringBuilder(random.pick("get", "gets", "gat 100", "gats 0"));
                for (int i = random.between(1, 8); i > 0; i--) {
                    line.append(' ').append("k").append(random.below(12));
                }
                yield new Sent((line + "\r\n").getBytes(StandardCharsets.US_ASCII), true);
            }
            case 5 -> new Sent(("delete " + key + tail + "\r\n").getBytes(StandardCharsets.US_ASCII), !noreply);
            case 6, 7 -> new Sent((random.pick("incr ", "decr ") + key + " " + random.pick("1", "5", "100",
                    "18446744073709551615") + tail + "\r\n").getBytes(StandardCharsets.US_ASCII), !noreply);
            case 8 -> new Sent(("touch " + key + " " + random.pick("0", "100") + tail + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII), !noreply);
            case 9 -> new Sent(("verbosity 1" + tail + "\r\n").getBytes(StandardCharsets.US_ASCII), !noreply);
            case 10 -> new Sent(random.pick("stats\r\n", "stats settings\r\n", "version\r\n")
                    .getBytes(StandardCharsets.US_ASCII), true);
            default -> new Sent(("set " + key + " 0 0 2\r\n" + (10 + random.below(90)) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII), true);
        };
    }

    private static byte[] mutate(Mutator random, byte[] bytes) {
        return switch (random.below(5)) {
            case 0 -> random.flip(bytes, 0, bytes.length, 1 + random.below(4));
            case 1 -> random.insert(bytes, random.garbage(64));
            case 2 -> random.truncate(bytes);
            case 3 -> random.insert(bytes, ("x".repeat(random.between(10, 5000))).getBytes(StandardCharsets.US_ASCII));
            default -> random.splice(bytes, random.garbage(32));
        };
    }

    @TestFactory
    Stream<DynamicTest> fuzzedTextStreams() {
        return FuzzSeeds.tests(SEEDS, Duration.ofSeconds(30), seed -> {
            Mutator random = new Mutator(seed);
            boolean intact = seed % 2 == 0;
            List<byte[]> stream = new ArrayList<>();
            int answered = 0;
            for (int i = random.between(5, 40); i > 0; i--) {
                Sent sent = command(random);
                stream.add(intact || !random.chance(25) ? sent.bytes() : mutate(random, sent.bytes()));
                answered += sent.answered() ? 1 : 0;
            }
            stream.add("version\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] bytes = Mutator.concat(stream);
            byte[] replies;
            try (ClientConnection client = ClientConnection.tcp(gateway.port(), 10_000)) {
                random.sendSplit(bytes, 12, piece -> client.out().write(piece));
                client.socket().shutdownOutput();
                replies = readToClose(client.in());
            }
            List<String> units = TextClient.replies(replies);
            if (intact) {
                assertEquals(answered + 1, units.size(), "one reply per command asking for one: " + units);
                assertTrue(units.get(units.size() - 1).startsWith("VERSION "), units.toString());
            }
            canary(seed);
        });
    }

    private static byte[] readToClose(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the gateway kept the connection open after the client's input ended");
        } catch (IOException e) {
            // reset by the gateway after it closed: what came before is whole
        }
        return out.toByteArray();
    }

    private static void canary(long seed) throws IOException {
        try (TextClient client = new TextClient(gateway.port())) {
            String value = "canary-" + seed;
            assertEquals("STORED\r\n", client.store("set", "canary", 0, 0, value), "after the seed");
            assertEquals(value, client.get("canary"), "after the seed");
        }
    }
}
