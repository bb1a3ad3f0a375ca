package kvgate.testing;

import java.util.Map;

/** Real servers a test starts for a remote backend (memcached, Redis), and the gateway settings that use them. */
public interface BackendServers extends AutoCloseable {

    /** The gateway settings that put its data on these servers. */
    Map<String, String> backendSettings();
}
