package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
