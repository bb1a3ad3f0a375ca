package kvgate.okuyama;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OkuyamaMethodTest {

    @Test
    void eachMethodIsFoundByItsOwnNumberAndNoOther() {
        Set<Integer> codes = new HashSet<>();
        for (OkuyamaMethod method : OkuyamaMethod.values()) {
            assertEquals(method, OkuyamaMethod.of(method.code()));
            codes.add(method.code());
        }
        assertEquals(OkuyamaMethod.values().length, codes.size(), "two methods share a number");
        assertNull(OkuyamaMethod.of(4), "4 is getTagKeys's reply, not a request");
        assertNull(OkuyamaMethod.of(-1));
    }

    @Test
    void getTagKeysIsAnsweredAsFourAndEveryOtherMethodAsItself() {
        for (OkuyamaMethod method : OkuyamaMethod.values()) {
            assertEquals(method == OkuyamaMethod.GET_TAG_KEYS ? 4 : method.code(), method.replyCode());
        }
    }
}
