package kvgate.memcached.couchbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * The cluster map a Couchbase client bootstraps from and polls (GET_CLUSTER_CONFIG): one node, this gateway, which
 * holds the one vbucket of every bucket, so a client sends each document to the connection it already has. The
 * client replaces {@code $HOST} with the host it dialled, so one map serves every address the gateway listens on.
 *
 * <p>A client also identifies the node by its management (HTTP) port, which must be the one it was given for the
 * node (8091 unless told otherwise). A client needs that port only for management calls and {@code waitUntilReady},
 * not for documents; with {@code memcached.mgmt_enable} the gateway listens there and answers what
 * {@code waitUntilReady} asks ({@link ManagementEndpoint}), else nothing does.
 *
 * <p>Over TLS ({@code memcached.tls}), the ports are named as a Couchbase node names its TLS ports ({@code kvSSL},
 * {@code mgmtSSL}), which an SDK connecting with {@code couchbases://} looks for: the memcached port then serves TLS
 * only, and so does the management port.
 *
 * @param kvPort the memcached port to name: the one the client reached, or {@code memcached.advertised_port}
 * @param mgmtPort the management port to name ({@code memcached.mgmt_port})
 * @param tls whether both ports serve TLS
 */
public record ClusterConfig(int kvPort, int mgmtPort, boolean tls) {
    /** The map of plain ports. */
    public ClusterConfig(int kvPort, int mgmtPort) {
        this(kvPort, mgmtPort, false);
    }

    /**
     * The map's revision. The map never changes while the gateway runs (a client ignores a map whose revision it
     * already has), and a restarted gateway gives the same map.
     */
    static final int REVISION = 1;

    /** The map of {@code bucket}, as JSON. */
    public byte[] json(String bucket) {
        return map(bucket).toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The map of {@code bucket} as the management port gives it ({@code GET /pools/default/buckets/<bucket>}): the
     * same map, its node with a status besides, which a client's {@code waitUntilReady} waits to be "healthy".
     *
     * @param ready whether the bucket's documents are served: "healthy", else "warmup", as a Couchbase node says
     *              while it loads a bucket
     */
    byte[] managementJson(String bucket, boolean ready) {
        ObjectNode map = map(bucket);
        for (JsonNode node : map.get("nodes")) {
            ((ObjectNode) node).put("status", ready ? "healthy" : "warmup");
        }
        return map.toString().getBytes(StandardCharsets.UTF_8);
    }

    private ObjectNode map(String bucket) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode map = nodes.objectNode();
        map.put("rev", REVISION);
        map.put("name", bucket);
        map.put("nodeLocator", "vbucket");
        ObjectNode node = map.putArray("nodes").addObject();
        node.put("hostname", "$HOST:" + mgmtPort);
        node.putObject("ports").put("direct", kvPort);
        ObjectNode extended = map.putArray("nodesExt").addObject();
        extended.put("hostname", "$HOST");
        extended.put("thisNode", true);
        extended.putObject("services").put(tls ? "kvSSL" : "kv", kvPort).put(tls ? "mgmtSSL" : "mgmt", mgmtPort);
        ObjectNode vbuckets = map.putObject("vBucketServerMap");
        vbuckets.put("hashAlgorithm", "CRC");
        vbuckets.put("numReplicas", 0);
        vbuckets.putArray("serverList").add("$HOST:" + kvPort);
        ArrayNode vbucketMap = vbuckets.putArray("vBucketMap");
        vbucketMap.addArray().add(0);
        ArrayNode capabilities = map.putArray("bucketCapabilities");
        for (String capability : new String[] {"cccp", "collections", "nodesExt", "touch"}) {
            capabilities.add(capability);
        }
        return map;
    }
}
