package kvgate.backend.okuyama;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.OkuyamaVersions;
import org.junit.jupiter.api.Test;

/** How a DataNode's export lines become the items and keys of a namespace. */
class ExportListingTest {
    private static final long NOW = 1_800_000_000_000L;
    private static final Namespace OWN = new Namespace("default");

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aLineGivesTheValueTheVersionAndTheExpiry() {
        DataNodeExport.Record plain = DataNodeExport.parse("+," + b64("k") + "," + b64("v") + "!123,1,;", NOW);
        assertEquals(b64("k"), plain.key());
        assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), plain.item().value());
        assertEquals(123, plain.item().cas());
        assertEquals(Item.NEVER, plain.item().expiresAt());

        long later = NOW + 60_000;
        DataNodeExport.Record expiring = DataNodeExport.parse("+," + b64("k") + "," + b64("v") + ",0-" + later
                + "-60!0,1,;", NOW);
        assertEquals(later, expiring.item().expiresAt());
        assertEquals(Long.MIN_VALUE, expiring.item().cas(), "version 0 is a CAS no version has");
        assertEquals("0", OkuyamaVersions.version(expiring.item().cas()));

        assertEquals(0, DataNodeExport.parse("+," + b64("k") + ",(B)!5,1,;", NOW).item().value().length);
    }

    @Test
    void expiredDeletedAndMalformedLinesAreNotItems() {
        assertNull(DataNodeExport.parse("+," + b64("k") + "," + b64("v") + ",0-" + (NOW - 1) + "-1!1,1,;", NOW));
        assertNull(DataNodeExport.parse("+," + b64("k") + ",null,1,;", NOW));
        assertNull(DataNodeExport.parse("garbage", NOW));
        assertNull(DataNodeExport.parse("+,,;", NOW));
        assertNull(DataNodeExport.parse("+," + b64("k") + ",not base64!!!1,1,;", NOW));
    }

    @Test
    void okuyamasOwnRecordsAndOtherTenantsAreNotListed() {
        OkuyamaKeys keys = new OkuyamaKeys(OWN, "");
        assertArrayEquals("k".getBytes(StandardCharsets.UTF_8), keys.listed(OWN, b64("k")));
        assertNull(keys.listed(OWN, "{imdst_tag#9641" + b64("tag") + "_01469#tag_imdst}"));
        assertNull(keys.listed(OWN, b64("{imdst_list#1234name")));
        assertNull(keys.listed(OWN, "#abcde" + b64("k")), "another tenant's key");

        OkuyamaKeys tenant = new OkuyamaKeys(OWN, "abcde");
        assertArrayEquals("k".getBytes(StandardCharsets.UTF_8), tenant.listed(OWN, "#abcde" + b64("k")));
        assertNull(tenant.listed(OWN, "#fghij" + b64("k")));
        assertNull(tenant.listed(OWN, b64("k")), "a key of no tenant");
    }

    @Test
    void otherNamespacesLiveBehindTheirNameAndKeepFlagsAndExpiry() {
        OkuyamaKeys keys = new OkuyamaKeys(OWN, "");
        Namespace other = new Namespace("kvgate:tags:default");
        String stored = keys.encode(other, "k".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("k".getBytes(StandardCharsets.UTF_8), keys.listed(other, stored));
        assertNull(keys.listed(OWN, stored), "not a key of the cluster's own namespace");
        assertNull(keys.listed(new Namespace("kvgate:tags"), stored));
        assertEquals(b64("k"), keys.encode(OWN, "k".getBytes(StandardCharsets.UTF_8)));

        byte[] value = StoredValues.encode(false, "v".getBytes(StandardCharsets.UTF_8), 42, NOW);
        Item item = StoredValues.decode(false, value, 7);
        assertEquals(42, item.flags());
        assertEquals(NOW, item.expiresAt());
        assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), item.value());
        assertArrayEquals("v".getBytes(StandardCharsets.UTF_8),
                StoredValues.encode(true, "v".getBytes(StandardCharsets.UTF_8), 0, NOW), "own values as they are");
    }
}
