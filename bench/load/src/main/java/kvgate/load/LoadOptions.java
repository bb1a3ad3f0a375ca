package kvgate.load;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run does.
 *
 * @param socket a Unix domain socket to connect to instead of {@code host} and {@code port} (stream protocols); empty:
 *     TCP
 * @param connections TCP (or Unix socket) connections, or UDP sockets for MPDB (each a client with its own echo
 *     sequence)
 * @param depth requests in flight per connection (pipelining); for MPDB at most the gateway's {@code mpdb.window}
 * @param seconds length of the measured period
 * @param warmup seconds of the same load before it, not recorded
 * @param keys size of the key space (counter: the number of counter names)
 * @param keySize bytes of each key (a prefix and a zero-padded number)
 * @param valueSize bytes of each stored value
 * @param getRatio share of reads among the requests (binary, collections, okuyama, MPDB)
 * @param threads network threads of the generator
 * @param rate total requests per second at fixed intended send times (open loop); 0: each connection sends as fast
 *     as its replies come back (closed loop)
 * @param batch open loop: requests sent together, in one write on one connection, at each intended time, as a
 *     client sending batches of gets would (at most {@code depth}); the rate counts requests, not batches
 * @param fill store this many items (keys 0 to fill - 1) and stop; 0: a load run
 * @param prefill store every key of the key space once before the warm-up, so that gets hit
 * @param timeoutMillis a request unanswered this long is an error (a TCP connection is then given up)
 * @param multiKeys keys per okuyama getMultiValue (a tenth of okuyama's reads are getMultiValue)
 * @param collections collections of the manifest the collections protocol sets, keys spread over them
 * @param seed seed of the random choices (keys, the request mix)
 * @param watch processes ({@code PID}) or threads of one ({@code PID/TID}) whose CPU use over the measured period is
 *              reported beside the generator's (Linux)
 * @param tlsCa CA certificates (PEM) of a TLS server: the connections are TLS, the server's certificate checked
 *              against them; empty for plain connections
 */
public record LoadOptions(Protocol protocol, String host, int port, String socket, int connections, int depth,
        double seconds, double warmup, long keys, int keySize, int valueSize, double getRatio, int threads, double rate,
        int batch, long fill, boolean prefill, int timeoutMillis, int multiKeys, int collections, long seed,
        List<String> watch, String tlsCa) {

    static final String USAGE = """
            usage: kvgate-load --protocol=P --port=N|--socket=PATH [options]
              --protocol=binary|collections|counter|okuyama|mpdb
              --host=127.0.0.1 --port=N
              --socket=PATH         a Unix domain socket instead of --host and --port (not MPDB)
              --connections=16      connections (MPDB: UDP sockets, one client each)
              --depth=1             requests in flight per connection (MPDB: at most the gateway's mpdb.window)
              --seconds=10          measured period          --warmup=2   unrecorded load before it
              --rate=0              total requests/s at fixed intended send times (open loop), latency counted
                                    from each request's intended time; 0: closed loop, as fast as replies come
              --batch=1             open loop: requests sent together in one write at each intended time
                                    (at most --depth)
              --keys=10000 --key-size=32 --value-size=100 --get-ratio=0.9
              --threads=1           network threads of the generator
              --fill=0              store N items (keys 0 to N-1) and stop, reporting the fill
              --prefill=true        store the key space once before the warm-up, so gets hit
              --timeout-ms=5000 --multi-keys=10 --collections=4 --seed=1
              --tls-ca=PATH         TLS connections, the server's certificate checked against these CAs (PEM)
              --watch=PID[/TID],... also report these processes' (or threads') CPU use, and the machine's,
                                    over the period
            Several targets, in rounds, in one process (the generator compiled once for all of them):
              --port=N1,N2,...      each round runs every target once, in this order in odd rounds and in the
                                    reverse order in even ones (--socket=P1,P2,... likewise)
              --watch=W1;W2;...     a --watch list per target
              --rounds=1            --rewarm=S  the warm-up of every run after the first (default: --warmup)
            Prints one JSON line per run on stdout, as it ends, and a summary on stderr.""";

    public LoadOptions {
        if (socket.isEmpty()) {
            require(port > 0 && port < 65536, "--port between 1 and 65535, or --socket");
        } else {
            require(port == 0, "--socket or --port, not both");
            require(socket.startsWith("/"), "--socket an absolute path");
            require(protocol != Protocol.MPDB, "--socket with a stream protocol (MPDB is UDP)");
        }
        require(connections > 0, "--connections above 0");
        require(depth > 0, "--depth above 0");
        require(seconds > 0 || fill > 0, "--seconds above 0");
        require(warmup >= 0, "--warmup 0 or more");
        require(keys > 0, "--keys above 0");
        require(valueSize >= 0, "--value-size 0 or more");
        require(getRatio >= 0 && getRatio <= 1, "--get-ratio between 0 and 1");
        require(threads > 0, "--threads above 0");
        require(rate >= 0, "--rate 0 or more");
        require(batch > 0 && batch <= depth, "--batch between 1 and --depth");
        require(batch == 1 || rate > 0, "--batch with --rate (a closed loop keeps --depth requests in flight)");
        require(fill >= 0, "--fill 0 or more");
        require(fill == 0 || protocol.storesItems(), "--fill with a protocol that stores items");
        require(timeoutMillis > 0, "--timeout-ms above 0");
        require(multiKeys > 0, "--multi-keys above 0");
        require(collections > 0 && collections <= 100, "--collections between 1 and 100");
        long largest = Math.max(keys, fill) - 1;
        require(keySize >= KeySpace.PREFIX.length + Long.toString(largest).length(),
                "--key-size of at least " + (KeySpace.PREFIX.length + Long.toString(largest).length()) + " for "
                        + (largest + 1) + " keys");
        require(keySize <= 240, "--key-size of at most 240");
        require(tlsCa.isEmpty() || (socket.isEmpty() && protocol != Protocol.MPDB), "--tls-ca over TCP");
        watch = List.copyOf(watch);
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalArgumentException("expected " + what);
        }
    }

    /** The target as a person reads it: {@code port N}, or the socket's path. */
    public String target() {
        return socket.isEmpty() ? "port " + port : socket;
    }

    /** Whether requests go out at a fixed rate rather than as fast as replies come back. */
    public boolean openLoop() {
        return rate > 0;
    }

    /** The same run with another warm-up, and with or without storing the key space first. */
    LoadOptions rerun(double warmup, boolean prefill) {
        return new LoadOptions(protocol, host, port, socket, connections, depth, seconds, warmup, keys, keySize,
                valueSize, getRatio, threads, rate, batch, fill, prefill, timeoutMillis, multiKeys, collections, seed,
                watch, tlsCa);
    }

    /** Parses {@code --name=value} (or {@code --name value}) arguments; see {@link #USAGE}. */
    public static LoadOptions parse(String... args) {
        return parse(arguments(args));
    }

    /** The arguments by name: {@code --name=value} or {@code --name value}. */
    static Map<String, String> arguments(String... args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + arg);
            }
            int equals = arg.indexOf('=');
            if (equals > 0) {
                given.put(arg.substring(2, equals), arg.substring(equals + 1));
            } else if (i + 1 < args.length) {
                given.put(arg.substring(2), args[++i]);
            } else {
                throw new IllegalArgumentException("no value for " + arg);
            }
        }
        return given;
    }

    /** Parses the arguments by name, which it takes out of {@code given} as it reads them. */
    static LoadOptions parse(Map<String, String> given) {
        Arguments a = new Arguments(given);
        LoadOptions options = new LoadOptions(Protocol.named(a.text("protocol", "binary")),
                a.text("host", "127.0.0.1"), a.integer("port", 0), a.text("socket", ""),
                a.integer("connections", 16),
                a.integer("depth", 1), a.decimal("seconds", 10), a.decimal("warmup", 2), a.number("keys", 10_000),
                a.integer("key-size", 32), a.integer("value-size", 100), a.decimal("get-ratio", 0.9),
                a.integer("threads", 1), a.decimal("rate", 0), a.integer("batch", 1), a.number("fill", 0),
                Boolean.parseBoolean(a.text("prefill", "true")), a.integer("timeout-ms", 5000),
                a.integer("multi-keys", 10), a.integer("collections", 4), a.number("seed", 1), a.processes("watch"),
                a.text("tls-ca", ""));
        if (!given.isEmpty()) {
            throw new IllegalArgumentException("unknown option --" + given.keySet().iterator().next());
        }
        return options;
    }

    /** The given arguments, each taken out as it is read, so that what is left over is unknown. */
    record Arguments(Map<String, String> given) {
        String text(String name, String fallback) {
            String value = given.remove(name);
            return value == null ? fallback : value;
        }

        long number(String name, long fallback) {
            String value = text(name, null);
            try {
                return value == null ? fallback : Long.parseLong(value.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " is not a whole number: " + value);
            }
        }

        /** A list of {@code PID} or {@code PID/TID}. */
        List<String> processes(String name) {
            List<String> ids = new ArrayList<>();
            for (String part : text(name, "").split(",")) {
                if (!part.isBlank()) {
                    if (!part.strip().matches("[0-9]+(/[0-9]+)?")) {
                        throw new IllegalArgumentException("--" + name + " is not a list of PID or PID/TID: " + part);
                    }
                    ids.add(part.strip());
                }
            }
            return ids;
        }

        int integer(String name, int fallback) {
            long value = number(name, fallback);
            if (value != (int) value) {
                throw new IllegalArgumentException("--" + name + " is too large: " + value);
            }
            return (int) value;
        }

        double decimal(String name, double fallback) {
            String value = text(name, null);
            try {
                return value == null ? fallback : Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " is not a number: " + value);
            }
        }
    }
}
