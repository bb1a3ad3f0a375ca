package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class OkuyamaVersionsTest {
    @Test
    void versionsAreTheirNumberAndZeroACasNoVersionHas() {
        assertEquals(1234567890123L, OkuyamaVersions.cas("1234567890123"));
        assertEquals("1234567890123", OkuyamaVersions.version(1234567890123L));
        assertNotEquals(0, OkuyamaVersions.cas("0"), "0 would mean no check");
        assertEquals("0", OkuyamaVersions.version(OkuyamaVersions.cas("0")));
        assertEquals(OkuyamaVersions.NONE, OkuyamaVersions.cas("x"));
        assertEquals(OkuyamaVersions.NONE, OkuyamaVersions.cas(""));
    }
}
