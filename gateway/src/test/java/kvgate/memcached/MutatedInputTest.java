package kvgate.memcached;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.memcached.binary.Opcode;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.FuzzSeeds;
import kvgate.testing.Mutator;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded mutation fuzzing of the memcached binary front end over real sockets. Each seed builds a stream of valid
 * requests (documents with extras, keys, values and CAS, quiet variants, HELLO and collection ids, buckets,
 * manifests, statistics), mutates it and sends it in randomly split writes.
 *
 * <p>Even seeds keep the framing intact: every frame's body length is the bytes that follow it, so the gateway must
 * answer every request in order (quiet ones at most once), with the decoder's own error where it is certain, and
 * then a NOOP sent after them all. Odd seeds break the framing too (body lengths set to extremes, frames cut or
 * spliced, garbage between them): whatever comes back must be whole replies, and once the client stops sending the
 * gateway must close the connection rather than wait. After every seed a fresh connection must store a value and
 * read it back. Every buffer the decoder and encoder touch runs through the paranoid leak detector.
 */
class MutatedInputTest {
    private static final int SEEDS = 240;
    private static final int MAX_ITEM = 4096;
    private static final int MAX_FRAME = 65536;
    /** The opaque of the NOOP closing an intact stream; the generator's opaques stay far below it. */
    private static final int SENTINEL = 0x5eed0000;
    /** Quiet opcodes answer only on error (memcached's rule), so they may go unanswered. */
    private static final Set<Integer> QUIET = Set.of(GETQ, GETKQ, GATQ, SETQ, ADDQ, REPLACEQ, DELETEQ, INCREMENTQ,
            DECREMENTQ, QUITQ, FLUSHQ, APPENDQ, PREPENDQ);
    private static final Set<Integer> STATUSES = Arrays.stream(BinaryStatus.values()).map(BinaryStatus::code)
            .collect(Collectors.toSet());
    /** A collection the seeds' manifests add to bucket fuzz, so collection ids other than 0 have somewhere to go. */
    private static final long FUZZ_COLLECTION = 8;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        // Bucket check is never named by a fuzzed stream, so a manifest a mutation manages to set cannot take the
        // default collection the after-seed check writes to.
        // Binary only: a stream whose first byte a mutation changed would otherwise be read as text, which
        // TextMutatedInputTest fuzzes.
        gateway = TestGateway.start(Map.of("max_item_size", Integer.toString(MAX_ITEM),
                "memcached.max_frame", Integer.toString(MAX_FRAME), "buckets", "default,fuzz,check",
                "memcached.text", "false"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A request as sent, and the status its reply must have (-1: any the protocol has). */
    private record Sent(byte[] bytes, int expected) {
        int opcode() {
            return bytes[1] & 0xff;
        }

        int opaque() {
            return ByteBuffer.wrap(bytes, 12, 4).getInt();
        }

        /** Whether a reply must come: an error always does, and a non-quiet command always answers. */
        boolean mustReply() {
            return expected >= 0 || !QUIET.contains(opcode());
        }

        Sent with(byte[] changed, int status) {
            return new Sent(changed, status);
        }
    }

    @TestFactory
    Stream<DynamicTest> mutatedStreams() {
        return FuzzSeeds.tests(SEEDS, Duration.ofSeconds(30), seed -> {
            Mutator m = new Mutator(seed);
            List<Sent> requests = validRequests(m, seed);
            if (seed % 2 == 0) {
                sendIntact(m, requests);
            } else {
                sendBroken(m, requests);
            }
            assertFreshConnectionServes(seed);
        });
    }

    // --- valid requests ---

    /** A stream of well-framed requests of every kind the gateway serves but quit. */
    private static List<Sent> validRequests(Mutator m, long seed) {
        List<Sent> requests = new ArrayList<>();
        int[] opaque = {1};
        boolean collections = false;
        boolean fuzzBucket = false;
        if (m.chance(40)) {
            List<Integer> features = new ArrayList<>();
            for (int feature : new int[] {XERROR, SELECT_BUCKET_FEATURE, JSON, ALT_REQUEST, COLLECTIONS,
                    PRESERVE_TTL}) {
                if (m.chance(50)) {
                    features.add(feature);
                }
            }
            collections = features.contains(COLLECTIONS);
            byte[] asked = new byte[features.size() * 2];
            for (int i = 0; i < features.size(); i++) {
                asked = Mutator.put(asked, 2 * i, 2, features.get(i));
            }
            requests.add(request(HELLO, NONE, bytes("fuzz"), asked, 0, opaque));
        }
        if (m.chance(30)) {
            fuzzBucket = true;
            requests.add(request(SELECT_BUCKET, NONE, bytes("fuzz"), NONE, 0, opaque));
        }
        int count = m.between(10, 30);
        for (int i = 0; i < count; i++) {
            byte[] key = key(m, seed, collections, fuzzBucket);
            byte[] value = m.chance(30) ? bytes(Integer.toString(m.below(1000))) : m.bytes(m.below(64));
            long cas = m.chance(10) ? m.nextLong() : 0;
            int choice = m.below(26);
            requests.add(switch (choice) {
                case 0, 1, 2 -> request(m.pick(GET, GETQ, GETK, GETKQ), NONE, key, NONE, 0, opaque);
                case 3, 4, 5 -> request(m.pick(SET, SETQ, ADD, ADDQ, REPLACE, REPLACEQ),
                        storeExtras(m.nextInt(), m.pick(0, 0, 60, -1)), key, value, cas, opaque);
                case 6 -> request(m.pick(APPEND, APPENDQ, PREPEND, PREPENDQ), NONE, key, value, cas, opaque);
                case 7 -> request(m.pick(DELETE, DELETEQ), NONE, key, NONE, cas, opaque);
                case 8, 9 -> request(m.pick(INCREMENT, INCREMENTQ, DECREMENT, DECREMENTQ),
                        arithmeticExtras(m.below(100), m.below(100), m.pick(0, 60, 0xffffffff)), key, NONE, cas,
                        opaque);
                case 10 -> request(m.pick(TOUCH, GAT, GATQ), u32(m.pick(0, 60, -1)), key, NONE, 0, opaque);
                case 11 -> request(m.pick(NOOP, VERSION), NONE, NONE, NONE, 0, opaque);
                case 12 -> request(VERBOSITY, u32(m.below(3)), NONE, NONE, 0, opaque);
                case 13 -> request(STAT, NONE, bytes(m.pick("", "settings", "nothing")), NONE, 0, opaque);
                case 14 -> m.chance(20) ? request(m.pick(FLUSH, FLUSHQ), m.pick(NONE, u32(0)), NONE, NONE, 0, opaque)
                        : request(NOOP, NONE, NONE, NONE, 0, opaque);
                case 15 -> request(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0, opaque);
                case 16 -> m.chance(50) ? request(GET_COLLECTION_ID, NONE, NONE, bytes("_default.fz"), 0, opaque)
                        : request(GET_SCOPE_ID, NONE, bytes("_default"), NONE, 0, opaque);
                case 17 -> fuzzBucket ? request(SET_COLLECTIONS_MANIFEST, NONE, NONE, manifest(seed, i), 0, opaque)
                        : request(GET, NONE, key, NONE, 0, opaque);
                // The alternative framing, negotiated or not, with frame infos served, refused or malformed.
                case 18, 19 -> {
                    int opcode = m.pick(SET, SETQ, REPLACE, ADD, GET, APPEND, INCREMENT, SUBDOC_DICT_UPSERT);
                    byte[] extras = switch (opcode) {
                        case SET, SETQ, REPLACE, ADD -> storeExtras(m.nextInt(), m.pick(0, 60));
                        case INCREMENT -> arithmeticExtras(1, 0, 0);
                        case SUBDOC_DICT_UPSERT -> subdocExtras("a", 1);
                        default -> NONE;
                    };
                    byte[] body = opcode == SUBDOC_DICT_UPSERT ? pathAndValue("a", "1") : opcode == GET
                            || opcode == INCREMENT ? NONE : value;
                    byte[] framing = m.pick(NONE, PRESERVE_TTL_INFO, new byte[] {0x00}, new byte[] {0x11, 1},
                            new byte[] {0x13, 1, 0, 0}, new byte[] {(byte) 0xf0, 9}, new byte[] {0x52, 1},
                            new byte[] {0x43, 'b', 'o', 'b'}, new byte[] {0x50, 0x00});
                    yield new Sent(altFrame(opcode, framing, extras, key, body, cas, opaque[0]++), -1);
                }
                // What a Couchbase client sends besides documents; without a password file, PLAIN and CRAM-MD5
                // succeed for anyone (a CRAM-MD5 exchange may be left half done).
                case 20 -> request(m.pick(SASL_LIST_MECHS, GET_CLUSTER_CONFIG), NONE, NONE, NONE, 0, opaque);
                case 21 -> request(GET_ERROR_MAP, NONE, NONE, new byte[] {0, (byte) m.between(1, 3)}, 0, opaque);
                case 22 -> request(GET_META, m.pick(NONE, new byte[] {2}), key, NONE, 0, opaque);
                case 23 -> m.chance(50) ? request(SASL_AUTH, NONE, bytes("PLAIN"), bytes("\0fuzz\0pw"), 0, opaque)
                        : request(SASL_AUTH, NONE, bytes("CRAM-MD5"), NONE, 0, opaque);
                case 24 -> request(SUBDOC_MULTI_LOOKUP, m.pick(NONE, new byte[] {0}), key, concat(
                        lookupSpec(SUBDOC_GET, 0, m.pick("a", "a.b", "c[0]", "c[-1]")),
                        lookupSpec(m.pick(SUBDOC_EXISTS, SUBDOC_GET_COUNT), 0, m.pick("", "a", "c")),
                        lookupSpec(GET, 0, "")), 0, opaque);
                case 25 -> m.chance(50) ? request(SUBDOC_MULTI_MUTATION, m.pick(NONE, new byte[] {1}, u32(60)), key,
                        concat(mutationSpec(SUBDOC_DICT_UPSERT, 1, "a.b", Integer.toString(m.below(100))),
                                mutationSpec(SUBDOC_ARRAY_PUSH_LAST, 1, "c", "1,\"x\""),
                                mutationSpec(SUBDOC_COUNTER, 0, "n", m.pick("1", "-2"))), cas, opaque)
                        : request(m.pick(SUBDOC_GET, SUBDOC_COUNTER), subdocExtras("a.n", 1), key,
                        pathAndValue("a.n", "3"), 0, opaque);
                // Sometimes a get with a set's extras or a set without them: well framed, answered as malformed.
                default -> request(m.pick(GET, SET), m.pick(NONE, storeExtras(0, 0)), key, NONE, 0, opaque);
            });
        }
        return requests;
    }

    private static Sent request(int opcode, byte[] extras, byte[] key, byte[] value, long cas, int[] opaque) {
        return new Sent(frame(opcode, extras, key, value, cas, opaque[0]++), -1);
    }

    /** One of a few keys of this seed, so requests meet each other's items; with a collection id when negotiated. */
    private static byte[] key(Mutator m, long seed, boolean collections, boolean fuzzBucket) {
        String key = "s" + seed + "-k" + m.below(5);
        if (!collections) {
            return bytes(key);
        }
        return collectionKey(fuzzBucket && m.chance(50) ? FUZZ_COLLECTION : 0, key);
    }

    /** Bucket fuzz's manifest, with a uid that grows from seed to seed so most of them apply. */
    private static byte[] manifest(long seed, int index) {
        return bytes("{\"uid\":\"" + Long.toHexString(seed * 64 + index) + "\",\"scopes\":[{\"name\":\"_default\","
                + "\"uid\":\"0\",\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"},"
                + "{\"name\":\"fz\",\"uid\":\"" + Long.toHexString(FUZZ_COLLECTION) + "\"}]}]}");
    }

    // --- intact framing ---

    /**
     * Mutates the requests without touching how long each frame is, sends them and a NOOP, and checks that the
     * replies answer the requests in order and the NOOP last.
     */
    private static void sendIntact(Mutator m, List<Sent> valid) throws IOException {
        List<Sent> requests = m.mutatedInOrder(valid, request -> mutateKeepingLength(m, request),
                () -> randomFrame(m), new Sent(frame(NOOP, NONE, NONE, NONE, 0, SENTINEL), 0));
        byte[] stream = Mutator.concat(requests.stream().map(Sent::bytes).toList());
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            m.sendSplit(stream, 8, c::send);
            int next = 0;
            // A mutated frame may be an authentication that fails; the third failure in a row ends the connection.
            int authenticationFailures = 0;
            while (true) {
                Response reply = c.read();
                assertWellFormed(reply);
                while (true) {
                    assertTrue(next < requests.size(), "a reply that answers no request (in order): "
                            + describe(reply));
                    Sent request = requests.get(next);
                    if (request.opcode() == reply.opcode() && request.opaque() == reply.opaque()) {
                        break;
                    }
                    assertTrue(!request.mustReply(), "request " + next + " (opcode 0x"
                            + Integer.toHexString(request.opcode()) + ", opaque " + request.opaque()
                            + ") got no reply before " + describe(reply));
                    next++;
                }
                Sent answered = requests.get(next);
                if (answered.opcode() == SASL_AUTH || answered.opcode() == SASL_STEP) {
                    authenticationFailures = reply.status() == 0x0020 ? authenticationFailures + 1
                            : reply.status() == 0 ? 0 : authenticationFailures;
                    if (authenticationFailures == 3) {
                        assertTrue(c.closedByServer(), "the third failed authentication in a row closes");
                        return;
                    }
                }
                if (answered.expected() >= 0) {
                    assertEquals(answered.expected(), reply.status(), "status of request " + next + ", "
                            + describe(reply));
                }
                if (answered.opaque() == SENTINEL && answered.opcode() == NOOP) {
                    assertEquals(requests.size() - 1, next, "the closing NOOP is the last request");
                    return;
                }
                boolean moreStats = answered.opcode() == STAT && reply.status() == 0 && reply.key().length > 0;
                if (!moreStats) {
                    next++;
                }
            }
        }
    }

    /** One mutation that leaves the body length true, and the status the reply must then have, when certain. */
    private static Sent mutateKeepingLength(Mutator m, Sent request) {
        byte[] bytes = request.bytes();
        int opcode = request.opcode();
        switch (m.below(8)) {
            case 0 -> {
                // The decoder answers a frame of bad magic "invalid arguments" and skips it by its length (0x08, the
                // alternative framing, is another case: served where negotiated).
                int magic;
                do {
                    magic = m.below(256);
                } while (magic == 0x80 || magic == 0x08);
                return request.with(Mutator.put(bytes, 0, 1, magic), 0x0004);
            }
            case 1 -> {
                int unknown;
                do {
                    unknown = m.below(256);
                } while (Opcode.of(unknown) != null);
                return request.with(Mutator.put(bytes, 1, 1, unknown), 0x0081);
            }
            case 2 -> {
                // Another command's opcode on this body: a shape it may not take. Never quit, which would end the
                // stream early (quit is tried on its own in the odd seeds).
                Opcode other;
                do {
                    other = m.pick(Opcode.values());
                } while (other == Opcode.QUIT || other == Opcode.QUITQ);
                return request.with(Mutator.put(bytes, 1, 1, other.code()), -1);
            }
            case 3 -> {
                // A header field but the body length: key or extras lengths (perhaps past the body), datatype,
                // vbucket, opaque, CAS.
                int field = m.below(6);
                return request.with(switch (field) {
                    case 0 -> Mutator.put(bytes, 2, 2, m.pick(0, 250, 251, 0xffff, m.below(0x10000)));
                    case 1 -> Mutator.put(bytes, 4, 1, m.pick(0, 4, 8, 20, 0xff, m.below(256)));
                    case 2 -> Mutator.put(bytes, 5, 1, m.pick(1, 2, 0xff, m.below(256)));
                    case 3 -> Mutator.put(bytes, 6, 2, m.below(0x10000));
                    case 4 -> Mutator.put(bytes, 12, 4, m.nextInt() & 0xffff);
                    default -> Mutator.put(bytes, 16, 8, m.nextLong());
                }, -1);
            }
            case 4 -> {
                return request.with(m.flip(bytes, 24, bytes.length, 4), -1);
            }
            case 5 -> {
                // A value past max_item_size: "too large", the body skipped, the connection kept. A set first
                // resolves its key's collection, which may refuse it for another reason, so only other commands
                // have a certain status.
                byte[] value = m.bytes(MAX_ITEM + m.between(1, 64));
                int status = opcode == SET || opcode == SETQ ? -1 : 0x0003;
                return request.with(withValue(bytes, value), status);
            }
            case 6 -> {
                return request.with(withValue(bytes, m.bytes(MAX_ITEM)), -1); // exactly the limit
            }
            default -> {
                // A key around memcached's 250-byte limit, or far past it (as far as the alternative framing's
                // one-byte key length goes).
                byte[] key = bytes("k".repeat(bytes[0] == 0x08 ? m.pick(250, 251, 252, 255)
                        : m.pick(250, 251, 252, 1000)));
                return request.with(withKey(bytes, key), -1);
            }
        }
    }

    /** A frame of magic 0x80 whose every other header field is random, but its body length true. */
    private static Sent randomFrame(Mutator m) {
        byte[] frame = m.bytes(24 + m.below(100));
        frame[0] = (byte) 0x80;
        int opcode;
        do {
            opcode = m.below(256);
        } while (opcode == QUIT || opcode == QUITQ);
        frame[1] = (byte) opcode;
        return new Sent(Mutator.put(frame, 8, 4, frame.length - 24), -1);
    }

    /** The parts of a well-formed request frame, in either framing (framing extras empty in the classic one). */
    private record Parts(byte[] header, byte[] framing, byte[] extras, byte[] key, byte[] value) {
        static Parts of(byte[] frame) {
            boolean flexible = frame[0] == 0x08;
            int framing = flexible ? frame[2] & 0xff : 0;
            int key = flexible ? frame[3] & 0xff : ((frame[2] & 0xff) << 8) | (frame[3] & 0xff);
            int extrasAt = 24 + framing;
            int keyAt = extrasAt + (frame[4] & 0xff);
            return new Parts(Arrays.copyOf(frame, 24), Arrays.copyOfRange(frame, 24, extrasAt),
                    Arrays.copyOfRange(frame, extrasAt, keyAt), Arrays.copyOfRange(frame, keyAt, keyAt + key),
                    Arrays.copyOfRange(frame, keyAt + key, frame.length));
        }

        /** The frame of these parts, with the lengths that go with them. */
        byte[] frame() {
            byte[] lengths = header[0] == 0x08
                    ? Mutator.put(Mutator.put(header, 2, 1, framing.length), 3, 1, key.length)
                    : Mutator.put(header, 2, 2, key.length);
            lengths = Mutator.put(Mutator.put(lengths, 4, 1, extras.length), 8, 4,
                    framing.length + extras.length + key.length + value.length);
            return Mutator.concat(List.of(lengths, framing, extras, key, value));
        }
    }

    private static byte[] withValue(byte[] frame, byte[] value) {
        Parts parts = Parts.of(frame);
        return new Parts(parts.header(), parts.framing(), parts.extras(), parts.key(), value).frame();
    }

    private static byte[] withKey(byte[] frame, byte[] key) {
        Parts parts = Parts.of(frame);
        return new Parts(parts.header(), parts.framing(), parts.extras(), key, parts.value()).frame();
    }

    // --- broken framing ---

    /**
     * Breaks the framing in a few places, sends the stream, stops sending, and reads until the gateway closes: every
     * reply must be whole and of the protocol.
     */
    private static void sendBroken(Mutator m, List<Sent> valid) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        for (Sent request : valid) {
            frames.add((m.chance(15) ? mutateKeepingLength(m, request) : request).bytes());
        }
        int breaks = m.between(1, 3);
        for (int i = 0; i < breaks; i++) {
            int at = m.below(frames.size());
            byte[] frame = frames.get(at);
            int kind = m.below(7);
            if (kind == 0 && frame.length < 24) {
                kind = 3; // cut short already: no body length to set
            }
            switch (kind) {
                case 0 -> frames.set(at, Mutator.put(frame, 8, 4,
                        m.extremeLength(MAX_FRAME, MAX_FRAME + 1, MAX_ITEM + 1, frame.length - 24 + 1)));
                case 1 -> frames.set(at, m.truncate(frame));
                case 2 -> frames.set(at, m.splice(frame, m.pick(frames)));
                case 3 -> frames.add(at, m.chance(50) ? m.garbage(64)
                        : Mutator.put(m.garbage(64), 0, 1, 0x80)); // garbage that looks like a header
                case 4 -> frames.set(at, m.flip(frame, 0, 24, 3));
                case 5 -> frames.add(at, m.truncate(frame)); // a partial copy, then the whole frame
                default -> frames.add(at, frame(m.pick(QUIT, QUITQ), NONE, NONE, NONE, 0, 0));
            }
        }
        byte[] stream = Mutator.concat(frames);
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            m.sendSplit(stream, 8, c::send);
            finishSending(c);
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

    /** Tells the gateway no more bytes come (unless it has closed the connection already). */
    private static void finishSending(BinaryClient c) {
        try {
            c.socket().shutdownOutput();
        } catch (IOException e) {
            // already closed by the gateway
        }
    }

    private static void assertWellFormed(Response reply) {
        assertEquals(0x81, reply.magic(), "response magic");
        assertTrue(STATUSES.contains(reply.status()), "a status of the protocol: " + describe(reply));
        assertEquals(0, reply.dataType(), "raw data type");
        if (reply.status() != 0) {
            assertEquals(0, reply.extras().length, "no extras on an error: " + describe(reply));
        }
    }

    private static String describe(Response reply) {
        return "reply opcode 0x" + Integer.toHexString(reply.opcode()) + " opaque " + reply.opaque() + " status 0x"
                + Integer.toHexString(reply.status()) + " value " + reply.valueText();
    }

    /** A new connection stores a value and reads it back: the gateway still serves. */
    private static void assertFreshConnectionServes(long seed) throws IOException {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0, c.call(SELECT_BUCKET, NONE, bytes("check"), NONE, 0).status(), "select bucket check");
            String key = "fresh-" + seed;
            byte[] value = ("value of seed " + seed).getBytes(StandardCharsets.UTF_8);
            Response stored = c.call(SET, storeExtras((int) seed, 0), bytes(key), value, 0);
            assertEquals(0, stored.status(), "set on a fresh connection: " + describe(stored));
            Response read = c.get(key);
            assertEquals(0, read.status(), "get on a fresh connection: " + describe(read));
            assertArrayEquals(value, read.value(), "the value read back");
            assertEquals((int) seed, read.flags(), "the flags read back");
            assertEquals(stored.cas(), read.cas(), "the CAS of the set");
        }
    }
}
