package kvgate.load.bench;

/**
 * A server measured: where it listens, in which protocol the tool speaks to it, its process, the memcached behind it
 * for a proxy, and how many cores it can use.
 *
 * @param backend the memcached behind a proxy; null for a server without one
 */
record Target(String name, int port, String protocol, Servers.Started server, Servers.Started backend, int cores) {
}
