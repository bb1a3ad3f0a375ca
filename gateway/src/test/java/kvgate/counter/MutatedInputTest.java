package kvgate.counter;

import static kvgate.testing.CounterClient.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import kvgate.testing.CounterClient;
import kvgate.testing.CounterClient.Response;
import kvgate.testing.FuzzSeeds;
import kvgate.testing.Mutator;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded mutation fuzzing of the counter protocol's front end over real sockets. Each seed builds a stream of valid
 * requests (acquire, release and get of a few shared counters, noop, stats, dump), mutates it and sends it in
 * randomly split writes.
 *
 * <p>Even seeds keep the framing intact (every body length true, none past the 30 MiB the connection is closed
 * for): each request must get its one reply in order (a dump its lines and the empty one ending them), with the
 * error the protocol prescribes where it is certain, and then a NOOP sent after them all. Odd seeds break the
 * framing too (body lengths set to extremes, frames cut or spliced, garbage between them): whatever comes back must
 * be whole replies, and once the client stops sending the gateway must close the connection rather than wait.
 * After every seed a fresh connection must acquire, read and release a counter.
 */
class MutatedInputTest {
    private static final int SEEDS = 240;
    /** Acquire's fields with the longest name: the most of a body any request reads. */
    private static final int MAX_USEFUL_BODY = 10 + 65535;
    /** The reference server closes a connection whose request claims a longer body. */
    private static final long MAX_BODY = 30L << 20;
    private static final int SENTINEL = 0x5eed0000;
    private static final Set<Integer> OPCODES = Set.of(NOOP, GET, ACQUIRE, RELEASE, STATS, DUMP);
    private static final Set<Integer> STATUSES = Arrays.stream(CounterStatus.values()).map(CounterStatus::code)
            .collect(Collectors.toSet());
    private static final int INVALID = 0x04;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A request as sent, and the status its reply must have (-1: any the protocol has). */
    private record Sent(byte[] bytes, int expected) {
        int magic() {
            return bytes[0] & 0xff;
        }

        int opcode() {
            return bytes[1] & 0xff;
        }

        int opaque() {
            return ByteBuffer.wrap(bytes, 8, 4).getInt();
        }

        byte[] body() {
            return Arrays.copyOfRange(bytes, 12, bytes.length);
        }
    }

    @TestFactory
    Stream<DynamicTest> mutatedStreams() {
        return FuzzSeeds.tests(SEEDS, Duration.ofSeconds(30), seed -> {
            Mutator m = new Mutator(seed);
            List<Sent> requests = validRequests(m);
            if (seed % 2 == 0) {
                sendIntact(m, requests);
            } else {
                sendBroken(m, requests);
            }
            assertFreshConnectionServes();
        });
    }

    /**
     * A stream of well-formed requests on a few counter names every seed shares (so the dumps stay short), with
     * amounts that sometimes reach a maximum and releases that sometimes exceed what is held.
     */
    private static List<Sent> validRequests(Mutator m) {
        List<Sent> requests = new ArrayList<>();
        int count = m.between(8, 30);
        for (int opaque = 1; opaque <= count; opaque++) {
            String name = "fuzz-" + m.below(4);
            int choice = m.below(20);
            byte[] frame = switch (choice) {
                case 0, 1 -> frame(NOOP, opaque, new byte[0]);
                case 2, 3, 4 -> frame(GET, opaque, name(name));
                case 5, 6, 7, 8, 9, 10 -> frame(ACQUIRE, opaque, acquireBody(m.between(1, 5), m.between(5, 1000),
                        name));
                case 11, 12, 13, 14 -> frame(RELEASE, opaque, releaseBody(m.below(4), name));
                case 15, 16 -> frame(STATS, opaque, new byte[0]);
                default -> m.chance(25) ? frame(DUMP, opaque, new byte[0]) : frame(NOOP, opaque, new byte[0]);
            };
            requests.add(new Sent(frame, -1));
        }
        return requests;
    }

    // --- intact framing ---

    private static void sendIntact(Mutator m, List<Sent> valid) throws IOException {
        List<Sent> requests = m.mutatedInOrder(valid, request -> mutateKeepingLength(m, request), () -> {
            // Right magic, anything else random, the body length true.
            byte[] random = Mutator.put(m.bytes(12 + m.below(40)), 0, 1, 0x90);
            return new Sent(Mutator.put(random, 4, 4, random.length - 12), -1);
        }, new Sent(frame(NOOP, SENTINEL, new byte[0]), 0));
        byte[] stream = Mutator.concat(requests.stream().map(Sent::bytes).toList());
        try (CounterClient c = new CounterClient(gateway.counterPort())) {
            m.sendSplit(stream, 8, c::send);
            int next = 0;
            while (true) {
                Response reply = c.read();
                assertWellFormed(reply);
                assertTrue(next < requests.size(), "a reply that answers no request: " + describe(reply));
                Sent request = requests.get(next);
                assertEquals(request.opcode(), reply.opcode(), "opcode of the reply to request " + next + ", "
                        + describe(reply));
                assertEquals(request.opaque(), reply.opaque(), "opaque of the reply to request " + next + ", "
                        + describe(reply));
                if (request.expected() >= 0) {
                    assertEquals(request.expected(), reply.status(), "status of request " + next + ", "
                            + describe(reply));
                }
                assertShape(request, reply);
                if (request.opaque() == SENTINEL && request.opcode() == NOOP) {
                    assertEquals(requests.size() - 1, next, "the closing NOOP is the last request");
                    return;
                }
                boolean moreDump = request.magic() == 0x90 && request.opcode() == DUMP && reply.status() == 0
                        && reply.body().length > 0;
                if (!moreDump) {
                    next++;
                }
            }
        }
    }

    /** One mutation that leaves the body length true, and the status the reply must then have, when certain. */
    private static Sent mutateKeepingLength(Mutator m, Sent request) {
        byte[] bytes = request.bytes();
        int opaque = request.opaque();
        switch (m.below(8)) {
            case 0 -> {
                // The decoder answers a frame of bad magic "invalid arguments" and skips it by its length.
                int magic = m.between(0, 254);
                return new Sent(Mutator.put(bytes, 0, 1, magic >= 0x90 ? magic + 1 : magic), INVALID);
            }
            case 1 -> {
                int unknown;
                do {
                    unknown = m.below(256);
                } while (OPCODES.contains(unknown));
                return new Sent(Mutator.put(bytes, 1, 1, unknown), 0x81);
            }
            case 2 -> {
                return new Sent(Mutator.put(bytes, 1, 1, m.pick(List.copyOf(OPCODES))), -1);
            }
            case 3 -> {
                // The reserved bytes, or the opaque.
                return new Sent(m.chance(50) ? m.flip(bytes, 2, 4, 2)
                        : Mutator.put(bytes, 8, 4, m.nextInt() & 0xffff), -1);
            }
            case 4 -> {
                return new Sent(m.flip(bytes, 12, bytes.length, 4), -1);
            }
            case 5 -> {
                return invalidRequest(m, opaque);
            }
            case 6 -> {
                // A body past the longest any request reads: the rest is skipped, the fields before it count.
                byte[] padded = Mutator.concat(List.of(request.body(), m.bytes(MAX_USEFUL_BODY + m.below(64))));
                return new Sent(frame(request.opcode(), opaque, padded), request.opcode() == NOOP ? 0 : -1);
            }
            default -> {
                // Amounts at the edges of 32 bits.
                long resources = m.pick(1L, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL);
                return new Sent(frame(ACQUIRE, opaque, acquireBody(resources, m.pick(resources, 0xffff_ffffL),
                        "fuzz-edge")), -1);
            }
        }
    }

    /**
     * A request the protocol refuses with "invalid arguments" whatever the counters hold: checked in the reference
     * server's order, lengths, then zero resources, then a maximum below the resources, then the name.
     */
    private static Sent invalidRequest(Mutator m, int opaque) {
        byte[] body = switch (m.below(7)) {
            case 0 -> acquireBody(0, 10, "fuzz-0");
            case 1 -> acquireBody(5, 4, "fuzz-0");
            case 2 -> acquireBody(1, 10, "");
            case 3 -> Mutator.put(acquireBody(1, 10, "fuzz-0"), 8, 2, m.pick(7, 0xffff)); // name past the body
            case 4 -> m.bytes(m.below(10)); // shorter than resources, maximum and a name length
            case 5 -> new byte[0];
            default -> Mutator.put(acquireBody(1, 10, "x"), 8, 2, 0);
        };
        int opcode = m.below(4) == 0 ? (m.chance(50) ? GET : RELEASE) : ACQUIRE;
        if (opcode != ACQUIRE) {
            // A get takes a name; a release, resources and a name: empty, or running past the body.
            body = opcode == GET ? m.pick(new byte[0], new byte[] {0, 0}, new byte[] {0, 9, 'a'})
                    : m.pick(new byte[4], new byte[] {0, 0, 0, 1, 0, 0}, new byte[] {0, 0, 0, 1, 1, 0, 'a'});
        }
        return new Sent(frame(opcode, opaque, body), INVALID);
    }

    // --- broken framing ---

    private static void sendBroken(Mutator m, List<Sent> valid) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        for (Sent request : valid) {
            frames.add((m.chance(15) ? mutateKeepingLength(m, request) : request).bytes());
        }
        int breaks = m.between(1, 3);
        for (int i = 0; i < breaks; i++) {
            int at = m.below(frames.size());
            byte[] frame = frames.get(at);
            int kind = m.below(6);
            if (kind == 0 && frame.length < 12) {
                kind = 3; // cut short already: no body length to set
            }
            switch (kind) {
                case 0 -> frames.set(at, Mutator.put(frame, 4, 4, m.extremeLength(MAX_BODY, MAX_BODY + 1,
                        MAX_USEFUL_BODY, MAX_USEFUL_BODY + 1, frame.length - 12 + 1)));
                case 1 -> frames.set(at, m.truncate(frame));
                case 2 -> frames.set(at, m.splice(frame, m.pick(frames)));
                case 3 -> frames.add(at, m.chance(50) ? m.garbage(64)
                        : Mutator.put(m.garbage(64), 0, 1, 0x90)); // garbage that looks like a header
                case 4 -> frames.set(at, m.flip(frame, 0, 12, 3));
                default -> frames.add(at, m.truncate(frame)); // a partial copy, then the whole frame
            }
        }
        byte[] stream = Mutator.concat(frames);
        try (CounterClient c = new CounterClient(gateway.counterPort())) {
            m.sendSplit(stream, 8, c::send);
            try {
                c.socket().shutdownOutput();
            } catch (IOException e) {
                // already closed by the gateway
            }
            try {
                for (Response reply = c.readOrEnd(); reply != null; reply = c.readOrEnd()) {
                    assertWellFormed(reply);
                }
            } catch (IOException e) {
                // A reply cut short by a clean end of stream, or a gateway that neither answered nor closed within
                // the read timeout: it waits for bytes the client has said it will never send.
                throw new AssertionError("reading the replies of a broken stream: " + e, e);
            }
        }
    }

    // --- both ---

    private static void assertWellFormed(Response reply) {
        assertEquals(0x91, reply.magic(), "response magic");
        assertTrue(STATUSES.contains(reply.status()), "a status of the protocol: " + describe(reply));
        assertEquals(0, reply.reserved(), "reserved byte");
        if (reply.status() != 0) {
            assertTrue(reply.body().length > 0, "an error says what it is: " + describe(reply));
        }
    }

    /** The body a success must have for the request it answers. */
    private static void assertShape(Sent request, Response reply) {
        if (reply.status() != 0 || request.magic() != 0x90) {
            return;
        }
        switch (request.opcode()) {
            case NOOP, RELEASE -> assertEquals(0, reply.body().length, "empty body: " + describe(reply));
            case GET -> assertEquals(4, reply.body().length, "the consumption: " + describe(reply));
            case ACQUIRE -> {
                assertEquals(4, reply.body().length, "the amount acquired: " + describe(reply));
                assertEquals(ByteBuffer.wrap(request.body(), 0, 4).getInt() & 0xffff_ffffL, reply.u32(0),
                        "an acquisition answers the resources it asked for");
            }
            default -> {
            }
        }
    }

    private static String describe(Response reply) {
        return "reply opcode 0x" + Integer.toHexString(reply.opcode()) + " opaque " + reply.opaque() + " status 0x"
                + Integer.toHexString(reply.status()) + " body of " + reply.body().length + " bytes";
    }

    /** A new connection acquires, reads and releases a counter no fuzzed stream names: the gateway still serves. */
    private static void assertFreshConnectionServes() throws IOException {
        try (CounterClient c = new CounterClient(gateway.counterPort())) {
            String name = "fresh"; // one name for every seed, so the dumps of later seeds stay short
            Response acquired = c.acquire(name, 3, 10);
            assertEquals(0, acquired.status(), "acquire on a fresh connection: " + describe(acquired));
            assertEquals(3, acquired.u32(0));
            assertEquals(3, c.get(name).u32(0), "the consumption after acquiring");
            assertEquals(0, c.release(name, 3).status(), "release on a fresh connection");
            Response after = c.get(name);
            assertEquals(0, after.status(), describe(after));
            assertEquals(0, after.u32(0), "the consumption after releasing");
        }
    }
}
