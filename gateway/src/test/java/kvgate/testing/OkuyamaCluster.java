package kvgate.testing;

import java.util.Map;

/**
 * An okuyama-protocol server for the okuyama backend's tests: a gateway on the local store, whose okuyama port is both
 * the MasterNode (every request code) and the DataNode (the data export) of a one-node cluster, as a real okuyama
 * cluster's are.
 */
public final class OkuyamaCluster implements BackendServers {
    private final TestGateway node;

    private OkuyamaCluster(TestGateway node) {
        this.node = node;
    }

    public static OkuyamaCluster start() throws Exception {
        return new OkuyamaCluster(TestGateway.start());
    }

    /** The gateway serving as the cluster, for its own clients and counters. */
    public TestGateway node() {
        return node;
    }

    public String address() {
        return "127.0.0.1:" + node.okuyamaPort();
    }

    /** The settings of a backend instance {@code name} ({@code backends.<name>.*}) on this cluster. */
    public Map<String, String> instance(String name) {
        String prefix = "backends." + name + ".";
        return Map.of(prefix + "type", "okuyama", prefix + "masters", address(), prefix + "datanodes", address());
    }

    @Override
    public Map<String, String> backendSettings() {
        return Map.of("backend", "okuyama", "okuyama.masters", address(), "okuyama.datanodes", address());
    }

    @Override
    public void close() {
        node.close();
    }
}
