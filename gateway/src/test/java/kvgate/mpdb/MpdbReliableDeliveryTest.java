package kvgate.mpdb;

import static kvgate.testing.MpdbClient.get;
import static kvgate.testing.MpdbClient.insert;
import static kvgate.testing.MpdbClient.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.metrics.GatewayMetrics;
import kvgate.testing.MpdbClient;
import kvgate.testing.MpdbClient.Reply;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reliable delivery over real UDP sockets: echo order, the server timeout, the window, resends answered from the
 * reply cache, and the datagrams that are dropped (and counted) because no echo tag can be read from them. The
 * gateway runs with a short server timeout so the tests need not wait three seconds.
 */
class MpdbReliableDeliveryTest {
    private static final int TIMEOUT_MILLIS = 400;
    /** Long enough that a reply the gateway was going to send has arrived. */
    private static final int SILENCE_MILLIS = 250;
    private static final int MAX_DATAGRAM = 1024;
    private static final AtomicInteger UNIQUE = new AtomicInteger();
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("mpdb.server_timeout_ms", Integer.toString(TIMEOUT_MILLIS),
                "mpdb.max_datagram", Integer.toString(MAX_DATAGRAM)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static MpdbClient client() throws Exception {
        return new MpdbClient(gateway.mpdbPort());
    }

    private static String fresh(String name) {
        return "col" + UNIQUE.incrementAndGet() + "." + name;
    }

    private static GatewayMetrics metrics() {
        return gateway.gateway().metrics();
    }

    private static String text(Reply reply, String key) {
        return (String) reply.result().get(key).value();
    }

    @Test
    void messagesArrivingOutOfOrderRunInEchoOrder() throws Exception {
        String key = fresh("k");
        try (MpdbClient client = client()) {
            assertEquals(1, client.call(insert(1, Map.of(key, "one"))).echo());
            assertEquals(2, client.call(insert(2, Map.of(key, "two"))).echo());
            client.send(get(4, key));
            assertNull(client.receive(SILENCE_MILLIS), "4 waits for 3");
            client.send(insert(3, Map.of(key, "three")));
            Reply third = client.receive();
            Reply fourth = client.receive();
            assertEquals(3, third.echo());
            assertEquals(4, fourth.echo());
            assertEquals("three", text(fourth, key), "4 ran after 3");
        }
    }

    @Test
    void aMissingMessageHoldsUpTheOthersOnlyUntilTheServerTimeoutAndStillRunsWhenItComes() throws Exception {
        String key = fresh("k");
        long skippedBefore = metrics().datagramGapsSkipped(MpdbDatagramHandler.PROTOCOL);
        try (MpdbClient client = client()) {
            assertEquals(1, client.call(insert(1, Map.of(key, "one"))).echo());
            long sent = System.nanoTime();
            client.send(get(3, key));
            Reply third = client.receive(TIMEOUT_MILLIS * 5);
            long waited = (System.nanoTime() - sent) / 1_000_000;
            assertNotNull(third, "3 runs once the timeout gives up on 2");
            assertEquals(3, third.echo());
            assertTrue(waited >= TIMEOUT_MILLIS - 50, "3 waited " + waited + " ms for 2");
            assertEquals("one", text(third, key));
            assertEquals(skippedBefore + 1, metrics().datagramGapsSkipped(MpdbDatagramHandler.PROTOCOL));

            assertEquals(4, client.call(insert(4, Map.of(key, "four"))).echo(), "the order goes on from 3");
            Reply late = client.call(get(2, key));
            assertEquals(2, late.echo(), "the missing message runs when it finally comes");
            assertEquals("four", text(late, key));
            assertEquals(2, client.call(get(2, key)).echo(), "and is answered again if resent");
            assertEquals("four", text(client.call(get(5, key)), key));
        }
    }

    @Test
    void aResentMessageIsAnsweredAgainFromTheCacheButRunsOnce() throws Exception {
        String key = fresh("k");
        long replayedBefore = metrics().datagramsReplayed(MpdbDatagramHandler.PROTOCOL);
        try (MpdbClient client = client()) {
            byte[] first = insert(1, Map.of(key, "first"));
            Reply reply = client.call(first);
            assertEquals(2, client.call(insert(2, Map.of(key, "second"))).echo());
            Reply again = client.call(first);
            assertEquals(reply, again, "the same reply");
            assertEquals(replayedBefore + 1, metrics().datagramsReplayed(MpdbDatagramHandler.PROTOCOL));
            assertEquals("second", text(client.call(get(3, key)), key), "1 did not run again");
            // A resend of a message that is still waiting is ignored: it runs once, with one reply.
            client.send(get(5, key));
            client.send(get(5, key));
            client.send(get(4, key));
            assertEquals(4, client.receive().echo());
            assertEquals(5, client.receive().echo());
            assertNull(client.receive(SILENCE_MILLIS), "one reply for 5");
        }
    }

    @Test
    void tenMessagesAheadAreBufferedAndLaterOnesDropped() throws Exception {
        String key = fresh("k");
        long droppedBefore = metrics().datagramsDropped(MpdbDatagramHandler.PROTOCOL, "beyond_window");
        try (MpdbClient client = client()) {
            assertEquals(1, client.call(insert(1, Map.of(key, "x"))).echo());
            // 1 has run; 2 is missing; 3..11 fit the window of 10 after 1, 12 does not.
            for (int echo = 3; echo <= 12; echo++) {
                client.send(get(echo, key));
            }
            client.send(get(2, key));
            List<Long> echoes = new ArrayList<>();
            Reply reply;
            while ((reply = client.receive(TIMEOUT_MILLIS * 3)) != null) {
                echoes.add(reply.echo());
            }
            assertEquals(List.of(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L), echoes);
            assertEquals(droppedBefore + 1, metrics().datagramsDropped(MpdbDatagramHandler.PROTOCOL,
                    "beyond_window"));
            assertEquals(12, client.call(get(12, key)).echo(), "the dropped message runs when resent");
        }
    }

    @Test
    void aClientStartingOverAtEchoOneIsServedAgain() throws Exception {
        String key = fresh("k");
        try (MpdbClient client = client()) {
            for (int echo = 1; echo <= 15; echo++) {
                assertEquals(echo, client.call(insert(echo, Map.of(key, "v" + echo))).echo());
            }
            // A node rebooted: same address, tags from 1 again, with new content.
            assertEquals(1, client.call(insert(1, Map.of(key, "after reboot"))).echo());
            assertEquals("after reboot", text(client.call(get(2, key)), key));
            byte[] again = insert(1, Map.of(key, "again"));
            assertEquals(1, client.call(again).echo());
            assertEquals("again", text(client.call(get(2, key)), key),
                    "tag 1 with new content while 1's reply is still cached starts over too");
            long replayed = metrics().datagramsReplayed(MpdbDatagramHandler.PROTOCOL);
            assertEquals(1, client.call(again).echo());
            assertEquals(replayed + 1, metrics().datagramsReplayed(MpdbDatagramHandler.PROTOCOL),
                    "the same tag 1 with the same content is a resend, answered from the cache");
        }
    }

    @Test
    void aRebootedClientSendingItsFirstMessageAgainUnchangedIsServedFromItsNextNewOne() throws Exception {
        String key = fresh("k");
        try (MpdbClient client = client()) {
            byte[] boot = get(1, key);
            assertEquals(1, client.call(boot).echo());
            assertEquals(2, client.call(insert(2, Map.of(key, "21"))).echo());
            // Rebooted: the same first message (answered from the cache, as a resend must be), then new content
            // under tag 2, which is no resend: the order starts over, and the new 2 runs once the missing 1 of the
            // new order has been waited for.
            assertEquals(1, client.call(boot).echo());
            long start = System.nanoTime();
            Reply inserted = client.call(insert(2, Map.of(key, "25")));
            assertEquals(2, inserted.echo());
            assertEquals("", inserted.error());
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS / 2),
                    "it waited for the server timeout");
            assertEquals("25", text(client.call(get(3, key)), key), "the new 2 ran");
        }
    }

    @Test
    void aFirstMessageResentAfterItsReplyLeftTheCacheNeverRunsTwice() throws Exception {
        String key = fresh("k");
        long staleBefore = metrics().datagramsDropped(MpdbDatagramHandler.PROTOCOL, "stale");
        try (MpdbClient client = client()) {
            byte[] first = insert(1, Map.of(key, "one"));
            assertEquals(1, client.call(first).echo());
            for (int echo = 2; echo <= 12; echo++) {
                assertEquals(echo, client.call(insert(echo, Map.of(key, "v" + echo))).echo());
            }
            client.send(first);
            assertNull(client.receive(SILENCE_MILLIS), "dropped: its reply has left the cache");
            assertEquals(staleBefore + 1, metrics().datagramsDropped(MpdbDatagramHandler.PROTOCOL, "stale"));
            assertEquals("v12", text(client.call(get(13, key)), key), "1 did not run again");
            assertEquals(14, client.call(get(14, key)).echo(), "and the order went on");
        }
    }

    @Test
    void aClientFirstSeenWithALargeEchoIsTakenFromThere() throws Exception {
        String key = fresh("k");
        try (MpdbClient client = client()) {
            // A client that talked to a gateway before it restarted: it goes on with its own numbering.
            assertEquals(500, client.call(insert(500, Map.of(key, "x"))).echo());
            assertEquals(501, client.call(get(501, key)).echo());
        }
    }

    @Test
    void afterTheLargestEchoTagASmallerOneIsDroppedAndTheListenerGoesOn() throws Exception {
        String key = fresh("k");
        try (MpdbClient client = client()) {
            assertEquals(Long.MAX_VALUE, client.call(insert(Long.MAX_VALUE, Map.of(key, "last"))).echo());
            client.send(get(5, key));
            assertNull(client.receive(TIMEOUT_MILLIS + SILENCE_MILLIS), "no tag comes after 2^63 - 1: 5 is stale");
        }
        try (MpdbClient other = client()) {
            // Past the server timeout: a gap before tag 5, had it been taken as ahead, would have been skipped.
            assertEquals("last", text(other.call(get(1, key)), key), "the listener still serves");
        }
    }

    @Test
    void datagramsWithNoEchoToAnswerAreDroppedAndCounted() throws Exception {
        String protocol = MpdbDatagramHandler.PROTOCOL;
        Map<String, List<byte[]>> cases = Map.of(
                "not_msgpack", List.of(new byte[0], new byte[] {(byte) 0xc1},
                        new byte[] {(byte) 0x82, (byte) 0xa4, 'e', 'c'}),
                "not_a_map", List.of(MpdbClient.pack(List.of("oper", "GET")), MpdbClient.pack("echo")),
                "no_echo", List.of(request("oper", "GET", "nodeid", 1L, "keys", List.of("a")),
                        request("oper", "GET", "echo", "7", "keys", List.of("a")),
                        request("oper", "GET", "echo", -3L, "keys", List.of("a"))),
                "oversized", List.of(request("oper", "INSERT", "data", Map.of("big", "x".repeat(MAX_DATAGRAM)),
                        "echo", 1L)));
        try (MpdbClient client = client()) {
            for (Map.Entry<String, List<byte[]>> entry : cases.entrySet()) {
                long before = metrics().datagramsDropped(protocol, entry.getKey());
                for (byte[] datagram : entry.getValue()) {
                    client.send(datagram);
                }
                assertNull(client.receive(SILENCE_MILLIS), entry.getKey());
                assertEquals(before + entry.getValue().size(), metrics().datagramsDropped(protocol, entry.getKey()),
                        entry.getKey());
            }
            assertEquals(1, client.call(get(1, "a")).echo(), "the listener serves on");
        }
    }

    @Test
    void aBadDatagramWithAReadableEchoGetsAnErrorReply() throws Exception {
        try (MpdbClient client = client()) {
            Reply oversized = client.call(request("echo", 1L, "oper", "INSERT",
                    "data", Map.of("big", "x".repeat(MAX_DATAGRAM))));
            assertEquals(1, oversized.echo());
            assertEquals("the datagram is longer than " + MAX_DATAGRAM + " bytes", oversized.error());

            // A string claiming 2 GiB after the echo: refused without allocating it.
            ByteArrayOutputStream huge = new ByteArrayOutputStream();
            huge.writeBytes(new byte[] {(byte) 0x82, (byte) 0xa4, 'e', 'c', 'h', 'o', 2, (byte) 0xa4, 'o', 'p', 'e',
                    'r', (byte) 0xdb, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 'G', 'E', 'T'});
            Reply truncated = client.call(huge.toByteArray());
            assertEquals(2, truncated.echo());
            assertEquals("the datagram is not a well-formed MsgPack map", truncated.error());

            byte[] twoValues = new byte[get(3, "a").length + 1];
            System.arraycopy(get(3, "a"), 0, twoValues, 0, twoValues.length - 1);
            Reply trailing = client.call(twoValues);
            assertEquals(3, trailing.echo());
            assertEquals("the datagram holds more than one MsgPack value", trailing.error());

            Reply zero = client.call(get(0, "a"));
            assertEquals(0, zero.echo());
            assertEquals("\"echo\" must be 1 or more", zero.error());

            Reply badUtf8 = client.call(MpdbClient.request("oper", "INSERT", "nodeid", 1L, "echo", 4L, "data",
                    Map.of(new MpdbClient.Raw(new byte[] {(byte) 0xa2, (byte) 0xc3, 0x28}), "x")));
            assertEquals(4, badUtf8.echo());
            assertEquals("a key of \"data\" is not a UTF-8 string", badUtf8.error());
            assertEquals(5, client.call(get(5, "a")).echo(), "the order went on through the errors");
        }
    }

    @Test
    void ipv4AndIpv6ClientsAreServedOnOneListenerAsSeparateClients() throws Exception {
        try (TestGateway dualStack = TestGateway.start(Map.of("mpdb.bind", "0.0.0.0"))) {
            String key = fresh("k");
            try (MpdbClient v4 = new MpdbClient(InetAddress.getByName("127.0.0.1"), dualStack.mpdbPort());
                 MpdbClient v6 = new MpdbClient(InetAddress.getByName("::1"), dualStack.mpdbPort())) {
                assertTrue(v6.localAddress().getAddress() instanceof Inet6Address);
                assertEquals("", v4.call(insert(1, Map.of(key, "from v4"))).error());
                Reply fromV6 = v6.call(get(1, key));
                assertEquals(1, fromV6.echo(), "echo 1 of another address is another client's first message");
                assertEquals("from v4", text(fromV6, key));
                assertEquals(2, dualStack.mpdbClients());
            }
        }
    }

    @Test
    void clientStateIsBoundedInMemoryAndExpires() throws Exception {
        try (TestGateway bounded = TestGateway.start(Map.of("mpdb.client_memory", "64k",
                "mpdb.client_expiry_s", "1", "mpdb.server_timeout_ms", "60000"))) {
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", bounded.mpdbPort());
            List<DatagramSocket> sockets = new ArrayList<>();
            try {
                // 100 addresses, each leaving tag 1 missing and 2..9 waiting with 900 bytes each: ~7 KB a client.
                for (int i = 0; i < 100; i++) {
                    DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
                    sockets.add(socket);
                    for (int echo = 2; echo <= 9; echo++) {
                        byte[] datagram = insert(echo, Map.of("k", "x".repeat(900)));
                        socket.send(new DatagramPacket(datagram, datagram.length, server));
                    }
                }
                try (MpdbClient probe = new MpdbClient(bounded.mpdbPort())) {
                    // One listener socket, one event loop: once the probe is answered, all the above was taken.
                    assertEquals(1, probe.call(get(1, "k")).echo());
                }
                long held = bounded.mpdbClients();
                assertTrue(held >= 1 && held <= 10, held + " clients held in 64 KiB");
            } finally {
                sockets.forEach(DatagramSocket::close);
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (bounded.mpdbClients() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(0, bounded.mpdbClients(), "idle clients are forgotten after the expiry");
        }
    }

    @Test
    void aClientWhoseEveryDatagramIsDroppedIsForgottenAndThenStartsAfresh() throws Exception {
        try (TestGateway expiring = TestGateway.start(Map.of("mpdb.client_expiry_s", "1"));
             MpdbClient client = new MpdbClient(expiring.mpdbPort())) {
            String key = fresh("k");
            for (int echo = 1; echo <= 12; echo++) {
                assertEquals(echo, client.call(insert(echo, Map.of(key, "v" + echo))).echo());
            }
            // A node rebooted and sends its first message again, byte for byte: taken for a late resend and
            // dropped, each time, until the state it keeps resending to has expired.
            byte[] boot = insert(1, Map.of(key, "v1"));
            long start = System.nanoTime();
            Reply reply = null;
            while (reply == null && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
                client.send(boot);
                reply = client.receive(200);
            }
            assertNotNull(reply, "served once its old state was forgotten");
            assertEquals(1, reply.echo());
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(900),
                    "not before the expiry: the resends did not keep the state alive, nor end it early");
            assertEquals("v1", text(client.call(get(2, key)), key));
        }
    }

    @Test
    void aWaitingRequestIsWeighedByWhatItHoldsNotByItsDatagramAlone() {
        String[] keys = new String[2000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "c" + i;
        }
        byte[] datagram = get(7, keys);
        MpdbDatagram decoded = MpdbCodec.decode(datagram, false, 1 << 16);
        int held = MpdbDatagramHandler.held((MpdbDatagram.Numbered) decoded, datagram.length);
        assertTrue(held >= datagram.length + 2000 * 100, held + " bytes for a datagram of " + datagram.length
                + " with 2000 keys");
    }

    @Test
    void uint64NodeIdsAreEchoedBack() throws Exception {
        BigInteger node = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.TWO);
        try (MpdbClient client = client()) {
            Reply reply = client.call(request("oper", "GETPERSIST", "nodeid", MpdbClient.integer(0xcf, node),
                    "echo", 1L, "keys", List.of("a")));
            assertEquals("", reply.error());
            assertEquals(node, reply.nodeid());
            assertArrayEquals(new Object[] {null}, reply.result().values().stream().map(MpdbClient.Typed::value)
                    .toArray());
        }
    }
}
