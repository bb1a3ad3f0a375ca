package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import kvgate.spi.Namespace;
import org.junit.jupiter.api.Test;

class ServerKeysTest {
    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void defaultNamespaceKeysAreUnchanged() {
        assertArrayEquals(bytes("user:42"), ServerKeys.of(Namespace.DEFAULT, bytes("user:42")));
    }

    @Test
    void otherNamespacesArePrefixed() {
        assertArrayEquals(bytes("\u0001b/8:2\u0002user:42"), ServerKeys.of(new Namespace("b/8:2"), bytes("user:42")));
    }

    @Test
    void noTwoNamespaceKeyPairsShareAServerKey() {
        Namespace[] namespaces = {Namespace.DEFAULT, new Namespace("a"), new Namespace("a.b"), new Namespace("ab")};
        String[] keys = {"", "b", "\u0001a\u0002b", "\u0001\u0002b", "\u0002b", "x".repeat(250), "x".repeat(251),
                "y".repeat(251), "\u0001" + "x".repeat(249)};
        Set<String> seen = new HashSet<>();
        for (Namespace namespace : namespaces) {
            for (String key : keys) {
                byte[] serverKey = ServerKeys.of(namespace, bytes(key));
                assertTrue(serverKey.length <= ServerKeys.MAX_LENGTH, namespace + " / " + key.length());
                assertTrue(seen.add(new String(serverKey, StandardCharsets.ISO_8859_1)),
                        "collision for " + namespace + " / " + key);
            }
        }
        assertEquals(namespaces.length * keys.length, seen.size());
    }

    @Test
    void longKeysAreHashedWithinTheLimitEvenInTheLongestNamespace() {
        Namespace longest = new Namespace("n".repeat(200));
        byte[] serverKey = ServerKeys.of(longest, bytes("k".repeat(4000)));
        assertTrue(serverKey.length <= ServerKeys.MAX_LENGTH);
        assertEquals(0x03, serverKey[201]);
    }

    @Test
    void everyKeyMadeIsToldBackButHashedOnes() {
        Namespace[] namespaces = {Namespace.DEFAULT, new Namespace("a"), new Namespace("b/8:2")};
        String[] keys = {"user:42", "\u0001starts-with-the-mark", "", "x".repeat(240)};
        for (Namespace namespace : namespaces) {
            for (String key : keys) {
                byte[] serverKey = ServerKeys.of(namespace, bytes(key));
                ServerKeys.Parsed parsed = ServerKeys.parse(serverKey);
                assertEquals(namespace, parsed.namespace(), key);
                assertArrayEquals(bytes(key), parsed.key(), namespace + " " + key);
            }
        }
        ServerKeys.Parsed hashed = ServerKeys.parse(ServerKeys.of(new Namespace("a"), bytes("y".repeat(300))));
        assertEquals(new Namespace("a"), hashed.namespace());
        assertEquals(null, hashed.key(), "a hashed key cannot be told back");
    }

    @Test
    void keysNoGatewayMadeAreDefaultNamespaceKeysAsTheyAre() {
        for (String raw : new String[] {"\u0001no-separator", "\u0001bad name!\u0002k"}) {
            ServerKeys.Parsed parsed = ServerKeys.parse(bytes(raw));
            assertEquals(Namespace.DEFAULT, parsed.namespace(), raw);
            assertArrayEquals(bytes(raw), parsed.key(), raw);
        }
    }

    @Test
    void dumpLinesAreReadAsMemcachedEncodesThem() throws Exception {
        ServerListing.Listed listed = ServerListing.parse(bytes(
                "key=%01ns%02a%20b%25 exp=1700000000 la=1699999000 cas=7 fetch=no cls=1 size=70"));
        assertArrayEquals(bytes("\u0001ns\u0002a b%"), listed.serverKey());
        assertEquals(1700000000L, listed.expiresAtSeconds());
        assertEquals(ServerListing.Listed.NEVER, ServerListing.parse(bytes("key=k exp=-1 la=1 cas=1 fetch=no cls=1 "
                + "size=1")).expiresAtSeconds());
        assertThrows(IOException.class, () -> ServerListing.parse(bytes("key=%0 exp=-1")));
        assertThrows(IOException.class, () -> ServerListing.parse(bytes("exp=-1 la=1")));
    }
}
