package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamespaceTest {
    @Test
    void namespacesOfOneNameAreEqualAndHashAlikeAndOthersAreNot() {
        Namespace a = new Namespace("bucket:scope.collection");
        Namespace same = new Namespace(new String("bucket:scope.collection"));
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        assertEquals(Namespace.DEFAULT, new Namespace("default"));
        assertNotEquals(a, new Namespace("bucket:scope.other"));
        assertNotEquals(a, Namespace.DEFAULT);
        assertNotEquals(a, "bucket:scope.collection", "a name is not a namespace");
        assertNotEquals(a, null);
        Map<Namespace, Integer> byNamespace = new HashMap<>();
        byNamespace.put(a, 1);
        byNamespace.put(same, 2);
        assertEquals(Map.of(a, 2), byNamespace, "one map key for both");
    }

    @Test
    void aNameOutsideTheAllowedCharactersOrLengthIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Namespace(""));
        assertThrows(IllegalArgumentException.class, () -> new Namespace("with space"));
        assertThrows(IllegalArgumentException.class, () -> new Namespace("x".repeat(201)));
        assertThrows(IllegalArgumentException.class, () -> new Namespace(null));
        assertEquals(200, new Namespace("x".repeat(200)).name().length());
    }

    @Test
    void theGatewaysOwnNamespacesAreThoseNamedKvgateColon() {
        assertTrue(new Namespace("kvgate:tags").isGatewaysOwn());
        assertTrue(new Namespace("kvgate:manifests").isGatewaysOwn());
        assertFalse(Namespace.DEFAULT.isGatewaysOwn());
        assertFalse(new Namespace("mpdb:kvgate:x").isGatewaysOwn(), "only a name that starts so");
    }
}
