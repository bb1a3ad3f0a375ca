package kvgate.load.bench;

/**
 * What the figures were measured on, for the report's heading: the machine, the software, and how the run was laid
 * out on the cores.
 *
 * @param started when the run began, as the report's title gives it ("2026-11-29 06:10 UTC")
 * @param cores the machine's cores
 * @param cpuModel the processor's model name
 * @param memory the machine's memory, as "24 GiB"
 * @param kernel Linux's release
 * @param loadStart the load average at the start
 * @param loadEnd the load average at the end
 * @param kvgate the commit measured ({@code git describe --always --dirty})
 * @param java the JVM's version line
 * @param resolvedTransport the transport the gateway's io_transport came to, as it said at its start ("" unknown)
 * @param memcached memcached's version line
 * @param nutcracker nutcracker's version line
 * @param memaslap memaslap's version line and the name it goes by
 * @param pinning how the tool and the servers were laid on the cores ("none" without pinning)
 * @param elapsedSeconds seconds measured, start-up included, the build not
 */
public record Setup(String started, int cores, String cpuModel, String memory, String kernel, String loadStart,
                    String loadEnd, String kvgate, String java, String resolvedTransport, String memcached,
                    String nutcracker, String memaslap, String pinning, long elapsedSeconds) {
}
