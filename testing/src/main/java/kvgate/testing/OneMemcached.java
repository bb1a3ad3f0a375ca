package kvgate.testing;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real memcached server of each test's own, started before the test and stopped after it: register it with
 * {@code @RegisterExtension final OneMemcached memcached = new OneMemcached();} and reach it by {@link #servers()}.
 */
public final class OneMemcached implements BeforeEachCallback, AfterEachCallback {
    private MemcachedServers servers;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        servers = MemcachedServers.start(1);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        servers.close();
    }

    public MemcachedServers servers() {
        return servers;
    }
}
