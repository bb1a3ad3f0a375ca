package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The text and meta protocols byte for byte against a real memcached: each case is sent on a connection of its own to
 * both, whose input then ends, and the two byte streams that come back (until each side closes) must be the same but
 * for CAS uniques, which each server numbers its own way (in {@code VALUE} lines and meta replies' {@code c} flags).
 * The cases are the commands and the malformed input whose handling memcached's documentation leaves to its source.
 */
@Tag("servers")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TextProtocolLikeMemcachedTest {
    private static final String LONG_KEY = "k".repeat(251);
    private static final String KEY_250 = "k".repeat(250);

    private MemcachedServers memcached;
    private TestGateway gateway;

    @BeforeAll
    void start() throws Exception {
        memcached = MemcachedServers.start(1);
        gateway = TestGateway.start();
    }

    @AfterAll
    void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (memcached != null) {
            memcached.close();
        }
    }

    /** A case: its name and the bytes a client sends. */
    record Case(String name, byte[] bytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Case of(String name, String text) {
        return new Case(name, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    static Stream<Case> cases() {
        List<Case> cases = new ArrayList<>(List.of(
                of("set then get", "set a1 5 0 3\r\nabc\r\nget a1\r\ngets a1\r\n"),
                of("set noreply", "set a2 0 0 3 noreply\r\nabc\r\nget a2\r\n"),
                of("a fifth word that is not noreply", "set a3 0 0 1 please\r\nx\r\nget a3\r\n"),
                of("add", "add a4 0 0 1\r\nx\r\nadd a4 0 0 1\r\ny\r\nget a4\r\n"),
                of("replace", "replace a5 0 0 1\r\nx\r\nset a5 0 0 1\r\nx\r\nreplace a5 7 0 1\r\ny\r\nget a5\r\n"),
                of("append and prepend", "append a6 0 0 1\r\nx\r\nprepend a6 0 0 1\r\nx\r\nset a6 3 0 1\r\nm\r\n"
                        + "append a6 9 0 2\r\nzz\r\nprepend a6 9 0 2\r\naa\r\nget a6\r\n"),
                of("cas without a unique item", "cas a7 0 0 1 0\r\nx\r\nset a7 0 0 1\r\nx\r\ncas a7 0 0 1 0\r\ny\r\n"
                        + "cas a7 0 0 1 99999999999\r\ny\r\nget a7\r\n"),
                of("cas missing a word", "cas a8 0 0 1\r\nx\r\n"),
                of("cas with a bad unique", "cas a8 0 0 1 -1\r\nx\r\ncas a8 0 0 1 abc\r\nx\r\n"),
                of("a data block too long", "set b1 0 0 2\r\nabc\r\nget b1\r\n"),
                of("a data block too short", "set b2 0 0 4\r\nab\r\nget b2\r\n"),
                of("a data block ending in a newline only", "set b3 0 0 2\r\nab\nget b3\r\n"),
                of("a bad data chunk with noreply", "set b4 0 0 1 noreply\r\nabc\r\nget b4\r\n"),
                of("a negative length", "set b5 0 0 -1\r\nabc\r\n"),
                of("bad numbers", "set b6 x 0 1\r\na\r\nset b6 0 x 1\r\na\r\nset b6 0 0 x\r\na\r\n"
                        + "set b6 -1 0 1\r\na\r\nset b6 1x 0 1\r\na\r\n"),
                of("numbers C reads", "set b7 +5 +0 +1\r\na\r\nset b8 4294967297 0 1\r\na\r\nset b9 007 0 01\r\na\r\n"
                        + "get b7 b8 b9\r\n"),
                of("a length beyond 32 bits", "set b10 0 0 4294967297\r\na\r\nget b10\r\n"),
                of("too many words", "set c1 0 0 1 noreply extra\r\na\r\n"),
                of("too few words", "set c2 0 0\r\na\r\nget\r\ngets\r\nincr c2\r\ntouch c2\r\ndelete\r\n"),
                of("keys of 250 and 251 bytes", "set " + KEY_250 + " 0 0 1\r\na\r\nget " + KEY_250 + "\r\nset "
                        + LONG_KEY + " 0 0 1\r\na\r\ndelete " + LONG_KEY + "\r\nincr " + LONG_KEY + " 1\r\ntouch "
                        + LONG_KEY + " 1\r\n"),
                // Alone: memcached loses the replies to commands earlier in the same read when a get fails so, which
                // the gateway does not copy.
                of("a get of a 251-byte key", "get " + LONG_KEY + "\r\n"),
                // a1 is set by the first case.
                of("a long key amid a multi-get", "get a1 " + LONG_KEY + " a1\r\n"),
                of("a multi-get in key order with misses", "set e1 0 0 1\r\n1\r\nset e3 0 0 1\r\n3\r\n"
                        + "get e3 e2 e1 e3\r\n"),
                of("a multi-get of many keys", "set f1 0 0 1\r\n1\r\nget" + " f1 f0".repeat(30) + "\r\n"),
                of("incr and decr", "incr g1 1\r\nset g1 0 0 3\r\n100\r\nincr g1 5\r\ndecr g1 6\r\nget g1\r\n"
                        + "decr g1 1000\r\nget g1\r\nincr g1 18446744073709551615\r\nincr g1 2\r\nget g1\r\n"),
                of("incr keeps a longer value's length", "set g2 0 0 4\r\n0010\r\nincr g2 1\r\nget g2\r\n"),
                of("incr grows past the value's length", "set g3 0 0 2\r\n99\r\nincr g3 1\r\nget g3\r\n"),
                of("incr on a non-number", "set g4 0 0 2\r\nab\r\nincr g4 1\r\ndecr g4 1\r\n"),
                of("bad deltas", "set g5 0 0 1\r\n1\r\nincr g5 -1\r\nincr g5 x\r\nincr g5 18446744073709551616\r\n"
                        + "decr g5 +2\r\n"),
                of("incr noreply", "set g6 0 0 1\r\n1\r\nincr g6 1 noreply\r\nincr g6 x noreply\r\nget g6\r\n"),
                of("touch", "touch h1 100\r\nset h1 0 0 1\r\na\r\ntouch h1 100\r\ntouch h1 x\r\ntouch h1 100 noreply\r\n"
                        + "get h1\r\n"),
                of("touch to the past", "set h2 0 0 1\r\na\r\ntouch h2 -1\r\nget h2\r\n"),
                of("gat and gats", "set h3 0 0 1\r\na\r\ngat 100 h3 h4\r\ngats 100 h3\r\ngat x h3\r\ngat 100\r\n"),
                of("delete", "delete i1\r\nset i1 0 0 1\r\na\r\ndelete i1\r\ndelete i1\r\n"),
                of("delete with a hold time", "set i2 0 0 1\r\na\r\ndelete i2 1\r\ndelete i2 0\r\nset i2 0 0 1\r\na\r\n"
                        + "delete i2 noreply\r\ndelete i2 0 noreply\r\ndelete i2 x noreply\r\ndelete i2 0 x\r\n"
                        + "delete i2 0 0 0\r\nget i2\r\n"),
                of("an expired item", "set j1 0 -1 1\r\na\r\nget j1\r\nadd j1 0 0 1\r\nb\r\nget j1\r\n"),
                of("verbosity", "verbosity 1\r\nverbosity\r\nverbosity x\r\nverbosity 1 noreply\r\nverbosity 1 2 3\r\n"),
                of("flush_all arguments", "flush_all x\r\nflush_all 1 2 3\r\nflush_all x noreply\r\n"),
                of("unknown commands", "bogus\r\n\r\na\r\nGET a1\r\nset\tk 0 0 1\r\nx\r\nmz\r\n"),
                of("newlines without returns", "set k1 0 0 1\nx\r\nget k1\nincr k1 1\n"),
                of("spaces between words", "set   k2  0 0 1  \r\nx\r\nget  k2   \r\n"),
                of("a NUL byte ends the line", "get k2\0 garbage\r\n"),
                of("quit", "set k3 0 0 1\r\nx\r\nquit\r\nget k3\r\n"),
                of("an HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
                of("an unended line over 2048 bytes", "x".repeat(3000)),
                of("an unended multi-get over 2048 bytes", "get" + " key".repeat(1000)),
                of("meta no-op", "mn\r\nmn\r\n"),
                of("meta set and get", "ms m1 3\r\nabc\r\nmg m1 v\r\nmg m1 s f v k Oabc\r\nmg m1\r\nmg m1 k\r\n"
                        + "mg m1 c\r\nmg m1 t\r\n"),
                of("meta misses", "mg m0\r\nmg m0 k O1 v\r\nmg m0 q\r\nmg m0 q k\r\nmn\r\n"),
                of("meta set with flags and quiet", "ms m2 2 F77 q\r\nab\r\nmg m2 f v q\r\nms m2 2 q k O9\r\ncd\r\n"
                        + "mn\r\n"),
                of("meta set modes", "ms m3 1 ME\r\na\r\nms m3 1 ME\r\nb\r\nms m4 1 MR\r\nx\r\nms m3 1 MA\r\nz\r\n"
                        + "ms m3 1 MP\r\ny\r\nmg m3 v\r\nms m3 1 MR\r\nr\r\nms m3 1 MS\r\ns\r\nmg m3 v\r\n"
                        + "ms m5 1 MA\r\nx\r\nms m5 1 MP\r\nx\r\n"),
                of("meta set with a CAS", "ms m6 1 C0\r\na\r\nms m6 1 C5\r\na\r\nms m6 1\r\na\r\nms m6 1 C0\r\nb\r\n"
                        + "ms m6 1 C99999999999 k\r\nb\r\nms m6 1 C0 ME\r\nb\r\nmg m6 v\r\n"),
                of("meta set refusals", "ms m7\r\nms m7 abc\r\nx\r\nms m7 -1\r\nx\r\nms m7 1 MZ\r\nx\r\n"
                        + "ms m7 1 v v\r\nx\r\nms m7 1 F-1\r\nx\r\nms m7 1 Tx\r\nx\r\nms m7 1 MEE\r\nx\r\n"
                        + "ms m7 1 O" + "o".repeat(33) + "\r\nx\r\nmg m7 v\r\n"),
                of("meta set data chunks", "ms m8 2\r\nabc\r\nms m8 2 q\r\nabc\r\nmg m8 v\r\n"),
                of("meta delete", "md m9\r\nms m9 1\r\na\r\nmd m9 q\r\nmd m9 k O5\r\nms m9 1\r\na\r\n"
                        + "md m9 C0\r\nmd m9 C1\r\nmd m9 v v\r\nmd m9 !\r\nmn\r\n"),
                of("meta arithmetic", "ma m10\r\nma m10 q\r\nma m10 N0 J10\r\nma m10 v\r\nma m10 MD D3 v\r\n"
                        + "ma m10 M- D100 v k O2\r\nma m10 MI D5\r\nma m10 M+ v\r\nma m10 q D2\r\nmg m10 v\r\n"
                        + "ma m10 Mx\r\nma m10 D-1\r\nma m10 Dx\r\nma m10 Jx\r\nma m10 MDD\r\nma m10 C0 v\r\n"),
                of("meta arithmetic on a non-number", "ms m11 2\r\nab\r\nma m11\r\nma m11 q\r\nmn\r\n"),
                // t stands after T and N here: memcached says the expiry as of t's place, the gateway after both.
                // No ma with T follows a read of its key, and the numbers keep their length: memcached applies T to
                // the item it is replacing otherwise (a pending reply still holds it, or the number grew), and
                // loses it.
                of("meta arithmetic with an expiry", "ma ax1 N0 J10 T100 v t\r\nma ax1 T0 v t\r\nmg ax1 t\r\n"
                        + "ma ax4 N0 J10 v\r\nma ax4 T50 D10 v t\r\nmg ax4 t\r\nma ax2 T30 N200 J1 t v\r\n"
                        + "ma ax3 N200 T30 J1 t v\r\nma ax5 N0 J10\r\nma ax5 T-1 v\r\nmg ax5 v\r\n"
                        + "ma ax9 T30 t\r\nma ax1 Tx\r\nma ax2 t q\r\nma ax2 t k O3\r\nmn\r\n"),
                // Not "mg mkey k": memcached remembers with the item that its key came in base64, and returns it so.
                of("meta base64 keys", "ms bWtleQ== 1 b\r\nx\r\nmg bWtleQ== b v k\r\nmg mkey v\r\n"
                        + "mg !!!! b v\r\nmd bWtleQ== b k q\r\nmg mkey v\r\n"),
                of("meta flag errors", "mg m1 v v\r\nmg m1 !\r\nmg m1 Z\r\nmg m1 O" + "o".repeat(33) + "\r\n"
                        + "mg " + LONG_KEY + " v\r\nmg\r\nmz m1\r\nm\r\nmg m1" + " P".repeat(19) + "\r\n"
                        + "md m1" + " L".repeat(19) + "\r\nmg m1 v q\r\n"),
                of("meta vivify on a miss", "mg v1 s f v N30\r\nmg v1 s v N30\r\nmg v1 v\r\nmg v1 k q\r\n"
                        + "ms v1 3\r\nnew\r\nmg v1 v N30\r\nmg v2 v q N30\r\nmg v2 q N30\r\nmn\r\n"),
                of("meta recache wins", "ms r1 1 T100\r\nx\r\nmg r1 v R30\r\nmg r1 v R200\r\nmg r1 v R200\r\n"
                        + "mg r1 R200\r\nms r1 1 T100\r\ny\r\nmg r1 v R200\r\nms r2 1\r\nx\r\nmg r2 v R200\r\n"
                        + "mg r2 Rx\r\nmg r2 v R0\r\nmg r2 v R-1\r\nms r3 1 T100\r\nx\r\nmg r3 v R100\r\n"
                        + "mg r3 v R101\r\n"),
                of("meta invalidation", "ms i1 1 F5\r\nx\r\nmd i1 I\r\nmg i1 v c f\r\nmg i1 v\r\nget i1\r\n"
                        + "gets i1\r\nmg i1 v\r\nms i1 1\r\ny\r\nmg i1 v\r\nmd i2 I\r\nmd i1 I T30 q\r\n"
                        + "mg i1 t v\r\nmd i1 I C1\r\nmd i1 I k O7\r\nmd i1 T30\r\nmg i1 v\r\n"),
                of("meta set of a stale value", "ms s1 1 T100\r\nx\r\nms s1 1 C1 I\r\ny\r\nmg s1 v t\r\n"
                        + "mg s1 v\r\nms s1 1 C1\r\nz\r\nms s1 1 C1 I ME\r\nz\r\nms s1 1 C1 I MA\r\nz\r\n"
                        + "ms s2 1 C1 I\r\nz\r\nms s1 1 I\r\nw\r\nmg s1 v\r\nms s1 1 C1 I MR\r\nr\r\n"
                        + "mg s1 v\r\nms s3 1 C1 I MR\r\nr\r\n"),
                of("meta arithmetic on a stale item", "ms a1 2\r\n10\r\nmd a1 I\r\nma a1 v\r\nmg a1 v\r\n"
                        + "mg a1 v\r\nma a1 D100 v\r\nmg a1 v\r\n"),
                of("meta touch of a stale item", "ms t1 1\r\nx\r\nmd t1 I\r\ntouch t1 100\r\nmg t1 v t\r\n"
                        + "mg t1 v T50 t\r\n"),
                of("a value too large", "set l1 0 0 1\r\na\r\nset l1 0 0 3000000\r\n" + "v".repeat(3_000_000)
                        + "\r\nget l1\r\nadd l2 0 0 3000000 noreply\r\n" + "v".repeat(3_000_000) + "\r\nget l2\r\n")));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void repliesAsMemcachedDoes(Case sent) throws Exception {
        String expected = normalized(exchange(memcached.port(0), sent.bytes()));
        String actual = normalized(exchange(gateway.port(), sent.bytes()));
        assertEquals(expected, actual);
    }

    /** Sends {@code bytes}, ends the input and reads until the server closes the connection. */
    static byte[] exchange(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[65536];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                }
            } catch (SocketTimeoutException e) {
                out.write("<no close>".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                out.write("<reset>".getBytes(StandardCharsets.US_ASCII));
            }
            return out.toByteArray();
        }
    }

    /** The replies with CAS uniques replaced by a mark, and the version line by the word alone. */
    static String normalized(byte[] replies) {
        return new String(replies, StandardCharsets.ISO_8859_1)
                .replaceAll("(?md)^(VALUE \\S+ \\d+ \\d+) \\d+\r$", "$1 <cas>\r")
                .replaceAll("(?md)^((?:HD|VA|EX|NF|NS)\\b.*) c\\d+", "$1 c<cas>")
                .replaceAll("(?md)^VERSION .*\r$", "VERSION\r");
    }
}
