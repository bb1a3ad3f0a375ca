package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kvgate.testing.FuzzSeeds;
import kvgate.testing.Mutator;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded mutation fuzzing of the okuyama front end over real sockets. Each seed builds request lines of every
 * method (stores with tags, versions and expiries, gets, multi-gets, tag reads, removes, counters, indexing and
 * search), mutates them (bytes flipped, cut, garbage put in, lines joined, duplicated, swapped or dropped, lines
 * and fields just over the limits) and sends them in randomly split writes.
 *
 * <p>Since a line ends at its line feed whatever it holds, the test cuts the mutated bytes into lines as the
 * protocol does and knows what each must get: one reply line of its method (or -1), lines up to END for the
 * multi-line methods, the protocol's exact error where it is certain; and an empty or closing line ends the
 * connection once the lines before it are answered. Most seeds end with a store and a get that must be answered
 * last, with the value stored; one in four ends inside a line and stops sending, and the gateway must then close the
 * connection rather than wait for the rest. After every seed a fresh connection must store and read back a value.
 */
class MutatedInputTest {
    private static final int SEEDS = 200;
    private static final int MAX_LINE = 8192;
    private static final int MAX_ITEM = 2048;
    private static final String CLOSE = "(&imdst9999&)";
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("okuyama.max_line", Integer.toString(MAX_LINE),
                "max_item_size", Integer.toString(MAX_ITEM)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /**
     * A request line as built: its bytes, what ends it ({@code \n}, {@code \r\n}, or nothing when it runs into the
     * next line), and the one reply it must get when that is certain (else null).
     */
    private record Line(byte[] text, String end, String expected) {
        Line(String text) {
            this(latin1(text), "\n", null);
        }

        Line with(byte[] changed, String reply) {
            return new Line(changed, end, reply);
        }
    }

    @TestFactory
    Stream<DynamicTest> mutatedStreams() {
        return FuzzSeeds.tests(SEEDS, Duration.ofSeconds(30), seed -> {
            Mutator m = new Mutator(seed);
            List<Line> lines = new ArrayList<>();
            for (Line line : validLines(m, seed)) {
                lines.add(m.chance(30) ? mutate(m, line) : line);
                if (m.chance(2)) {
                    lines.add(new Line(m.pick("", CLOSE, "\r"))); // ends the connection
                }
                if (m.chance(5)) {
                    lines.add(new Line(m.garbage(24), "\n", null));
                }
            }
            m.shuffleFrames(lines, 5, true);
            exchange(m, seed, lines);
            assertFreshConnectionServes(seed);
        });
    }

    // --- valid lines ---

    private static List<Line> validLines(Mutator m, long seed) {
        List<Line> lines = new ArrayList<>();
        int count = m.between(8, 25);
        for (int i = 0; i < count; i++) {
            String key = b64("s" + seed + "k" + m.below(4));
            String tag = b64("s" + seed + "t" + m.below(3));
            String tags = m.pick("(B)", tag, tag + ":" + b64("s" + seed + "t" + m.below(3)));
            String word = m.text(m.between(1, 6));
            String value = m.chance(30) ? b64(Integer.toString(m.below(1000))) : b64(word + " " + m.text(8));
            String group = b64("g" + m.below(2));
            lines.add(new Line(switch (m.below(16)) {
                case 0 -> m.pick("0", "999");
                case 1, 2 -> "1," + key + "," + tags + ",0," + value + (m.chance(30) ? "," + m.pick(0, 60, -1) + ","
                        : "");
                case 3 -> "6," + key + "," + tags + ",0," + value;
                case 4 -> "16," + key + ",(B),0," + value + "," + m.between(1, 1000);
                case 5, 6 -> "2," + key;
                case 7 -> "3," + tag + "," + m.pick("true", "false");
                case 8 -> "5," + key + ",0";
                case 9 -> m.pick("13,", "14,") + key + ",0," + b64(Integer.toString(m.between(-5, 50))) + ","
                        + m.pick("0", "1");
                case 10 -> "15," + key;
                case 11 -> "22," + key + "," + b64("s" + seed + "k" + m.below(4)) + "," + b64("missing");
                case 12 -> "23," + tag;
                case 13 -> "40," + tag + "," + key;
                case 14 -> "42," + key + "," + tags + ",0," + value + "," + group + ",3,1";
                default -> "43," + b64(word) + (m.chance(30) ? ":" + b64(m.text(2)) : "") + "," + m.pick("1", "2")
                        + "," + group + ",3";
            }));
        }
        return lines;
    }

    // --- mutations ---

    private static Line mutate(Mutator m, Line line) {
        byte[] text = line.text();
        String[] fields = new String(text, StandardCharsets.ISO_8859_1).split(",", -1);
        int method = Integer.parseInt(fields[0]);
        boolean stores = method == 1 || method == 6 || method == 16 || method == 42;
        switch (m.below(9)) {
            case 0 -> {
                return line.with(m.flip(text, 0, text.length, 3), null);
            }
            case 1 -> {
                return line.with(m.truncate(text), null);
            }
            case 2 -> {
                return line.with(m.insert(text, m.garbage(16)), null);
            }
            case 3 -> {
                if (stores) {
                    // Far past the line limit: dropped as it arrives, answered with the method's length error.
                    fields[4] = "A".repeat(MAX_LINE + m.between(1, 100));
                    return line.with(latin1(String.join(",", fields)), method + ",false,Value Length Error");
                }
                // A last field (the key of most methods) of 464 characters, the longest taken, or 468, refused.
                fields[fields.length - 1] = b64("k".repeat(m.pick(348, 351)));
                return line.with(latin1(String.join(",", fields)), null);
            }
            case 4 -> {
                if (stores) {
                    // A value one byte past max_item_size is refused; one of exactly max_item_size is taken (42
                    // gets only the one past it: indexing a value that long takes long).
                    boolean over = method == 42 || m.chance(50);
                    fields[4] = Base64.getEncoder().encodeToString(m.bytes(over ? MAX_ITEM + 1 : MAX_ITEM));
                    return line.with(latin1(String.join(",", fields)), over ? method
                            + ",false,Value Length Error" : null);
                }
                return line.with(text, null);
            }
            case 5 -> {
                return new Line(text, "\r\n", line.expected());
            }
            case 6 -> {
                return new Line(text, "", null); // runs into the next line
            }
            case 7 -> {
                fields[0] = m.pick("77", "-3", "4");
                return line.with(latin1(String.join(",", fields)), "-1,error,Request Pattern Not Found");
            }
            default -> {
                fields[0] = m.pick("x" + method, "", method + ".0", "9999999999");
                return line.with(latin1(String.join(",", fields)), "-1,false,ERROR,Request Parameter Error");
            }
        }
    }

    // --- exchange ---

    /**
     * Sends the lines, then a store and a get of a value of the seed's own, whose replies must come last; or, one seed
     * in four, the start of a line that never ends (short, or already past the limit) and then the end of the
     * client's stream: the gateway must answer every line before it, replies still under way included, and then
     * close the connection rather than wait. Nothing is sent after a line that ends the connection. Every reply is
     * checked against what the line it answers must get.
     */
    private static void exchange(Mutator m, long seed, List<Line> lines) throws IOException {
        boolean unfinished = seed % 4 == 3;
        String key = b64("sentinel-" + seed);
        String value = b64("the last value of seed " + seed);
        List<byte[]> parts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Line line = lines.get(i);
            // A line past the limit runs into no other, nor another into it, so its reply stays certain.
            boolean runsOn = line.end().isEmpty() && i + 1 < lines.size()
                    && lines.get(i + 1).text().length <= MAX_LINE;
            parts.add(line.text());
            parts.add(latin1(runsOn ? "" : line.end().isEmpty() ? "\n" : line.end()));
        }
        byte[] mutated = Mutator.concat(parts);
        if (mutated.length > 0 && mutated[mutated.length - 1] != '\n') {
            mutated = Mutator.concat(List.of(mutated, latin1("\n")));
        }
        byte[] tail;
        if (unfinished) {
            tail = m.chance(50) ? m.garbage(40) : latin1("1," + key + ",(B),0," + "A".repeat(MAX_LINE + 100));
            for (int i = 0; i < tail.length; i++) {
                tail[i] = tail[i] == '\n' ? (byte) 'n' : tail[i];
            }
        } else {
            tail = latin1("1," + key + ",(B),0," + value + "\n2," + key + "\n");
        }
        byte[] stream = Mutator.concat(List.of(mutated, tail));
        List<String> expected = new ArrayList<>(); // the exact reply of each line, when certain
        for (Line line : lines) {
            if (line.expected() != null) {
                expected.add(latin1(line.text()));
                expected.add(line.expected());
            }
        }
        expected.addAll(List.of("1," + key + ",(B),0," + value, "1,true,OK", "2," + key, "2,true," + value));

        // Cut as the protocol cuts: at each line feed, a carriage return before it dropped.
        List<String> requests = new ArrayList<>();
        int start = 0;
        int sent = stream.length;
        for (int i = 0; i < stream.length; i++) {
            if (stream[i] != '\n') {
                continue;
            }
            int end = i > start && stream[i - 1] == '\r' ? i - 1 : i;
            String request = new String(stream, start, end - start, StandardCharsets.ISO_8859_1);
            requests.add(request);
            start = i + 1;
            if (request.isEmpty() || request.equals(CLOSE)) {
                sent = start; // nothing after it is read: not sent, so the gateway closes cleanly, without a reset
                break;
            }
        }
        try (OkuyamaClient c = new OkuyamaClient(gateway.okuyamaPort())) {
            m.sendSplit(Arrays.copyOf(stream, sent), 8, c::send);
            if (unfinished) {
                try {
                    c.socket().shutdownOutput();
                } catch (IOException e) {
                    // already closed by the gateway
                }
            }
            for (int i = 0; i < requests.size(); i++) {
                String request = requests.get(i);
                String context = "reply to line " + i + " '" + abbreviated(request) + "'";
                if (request.isEmpty() || request.equals(CLOSE)) {
                    assertNull(c.readOrEnd(), "the connection closes after " + context);
                    return;
                }
                String exact = exactReply(expected, request);
                String reply = c.readOrEnd();
                // Also after the client's end of stream: the gateway answers every line it read before closing.
                assertNotNull(reply, "the connection closed before the " + context);
                if (exact != null) {
                    assertEquals(exact, reply, context);
                    continue;
                }
                assertTrue(request.length() <= MAX_LINE, "a line past the limit is one the test knows: " + context);
                checkByMethod(c, request, reply, context);
            }
            if (unfinished) {
                assertNull(c.readOrEnd(), "no reply to a line never ended, and the connection closes");
            }
        }
    }

    /** The reply a line must get when the test is certain of it, else null. */
    private static String exactReply(List<String> expected, String request) {
        for (int i = 0; i < expected.size(); i += 2) {
            if (expected.get(i).equals(request)) {
                return expected.get(i + 1);
            }
        }
        return null;
    }

    /**
     * The reply lines of a request, by its method number (the text before the first comma): a line that names no
     * number is a parameter error; multi-get (22) and tag values (23) answer lines up to END, or one line of -1 for
     * a missing argument; every other method answers one line of its own number (3 answers as 4) or of -1.
     */
    private static void checkByMethod(OkuyamaClient c, String request, String reply, String context)
            throws IOException {
        String[] fields = request.split(",");
        int method;
        try {
            method = Integer.parseInt(fields.length == 0 ? "" : fields[0].strip());
        } catch (NumberFormatException e) {
            assertEquals("-1,false,ERROR,Request Parameter Error", reply, context);
            return;
        }
        if (method == 22 || method == 23) {
            if (reply.startsWith("-1,")) {
                return;
            }
            for (String line = reply; !line.equals("END"); line = c.readOrEnd()) {
                assertNotNull(line, "the connection closed before END, " + context);
                assertTrue(line.startsWith(method + ","), "a line of method " + method + ": " + line + ", "
                        + context);
            }
            return;
        }
        int answeredAs = method == 3 ? 4 : method;
        assertTrue(reply.startsWith(answeredAs + ",") || reply.startsWith("-1,"), "a reply line of method "
                + answeredAs + " or -1: " + reply + ", " + context);
    }

    private static String abbreviated(String line) {
        return line.length() <= 80 ? line : line.substring(0, 80) + "...(" + line.length() + " bytes)";
    }

    private static byte[] latin1(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** A new connection stores a value and reads it back: the gateway still serves. */
    private static void assertFreshConnectionServes(long seed) throws IOException {
        try (OkuyamaClient c = new OkuyamaClient(gateway.okuyamaPort())) {
            String key = b64("fresh-" + seed);
            String value = b64("value of seed " + seed);
            assertEquals("1,true,OK", c.call("1," + key + ",(B),0," + value), "store on a fresh connection");
            assertEquals("2,true," + value, c.call("2," + key), "get on a fresh connection");
        }
    }
}
