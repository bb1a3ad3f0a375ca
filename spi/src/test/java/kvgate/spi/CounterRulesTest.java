package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CounterRulesTest {

    @Test
    void aContextWithoutRulesHasTheGatewaysDefaults() {
        BackendContext context = new BackendContext("t", new Settings(Map.of()), Clock.systemUTC(), 1024, null);
        assertEquals(86_400, context.counterRules().statsIntervalSeconds());
        assertEquals(60_000, context.counterRules().leaseMillis());
    }

    @Test
    void anIntervalOrLeaseOfNothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CounterRules(0, 60_000));
        assertThrows(IllegalArgumentException.class, () -> new CounterRules(10, 0));
    }
}
