package kvgate.net;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.spi.Settings;

/**
 * The stream protocols' Unix domain sockets as configured ({@code memcached.socket}, {@code okuyama.socket},
 * {@code counter.socket}, {@code socket_mode}), checked before anything listens, so that a bad one stops the start
 * with its key; {@link #listen} then binds each beside its protocol's TCP listener (see {@link Listener#bindUnix}).
 */
public final class UnixSockets {
    /** The longest path Linux takes for a socket: sun_path holds 108 bytes with the terminating NUL. */
    static final int MAX_PATH = 107;
    private static final String[] KEYS = {GatewaySettings.MEMCACHED_SOCKET, GatewaySettings.OKUYAMA_SOCKET,
            GatewaySettings.COUNTER_SOCKET};

    private final Map<String, Path> paths;
    private final Set<PosixFilePermission> mode;
    /** What listens where, for the start-up log. */
    private final List<String> bound = new ArrayList<>();

    private UnixSockets(Map<String, Path> paths, Set<PosixFilePermission> mode) {
        this.paths = paths;
        this.mode = mode;
    }

    public static UnixSockets of(Settings gateway) throws ConfigurationException {
        String octal = gateway.text(GatewaySettings.SOCKET_MODE);
        Set<PosixFilePermission> mode;
        try {
            mode = mode(octal);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(GatewaySettings.SOCKET_MODE + " = " + octal + ": " + e.getMessage());
        }
        Map<String, Path> paths = new LinkedHashMap<>();
        for (String key : KEYS) {
            String text = gateway.text(key);
            if (text.isEmpty()) {
                continue;
            }
            Path path = Path.of(text);
            if (!path.isAbsolute()) {
                throw new ConfigurationException(key + " = " + text + ": expected an absolute path");
            }
            if (text.getBytes(StandardCharsets.UTF_8).length > MAX_PATH) {
                throw new ConfigurationException(key + " = " + text + ": longer than the " + MAX_PATH
                        + " bytes a socket's path may have");
            }
            // The socket is bound first in a directory beside the path (see Listener.bindUnix), a longer path.
            int bound = path.getParent().toString().getBytes(StandardCharsets.UTF_8).length + Listener.STAGED_EXTRA;
            if (bound > MAX_PATH) {
                throw new ConfigurationException(key + " = " + text + ": its directory's path is too long for a "
                        + "socket: bound there first, in a directory of its own, its path would have " + bound
                        + " bytes, and Linux takes " + MAX_PATH);
            }
            for (Map.Entry<String, Path> other : paths.entrySet()) {
                if (other.getValue().normalize().equals(path.normalize())) {
                    throw new ConfigurationException(key + " = " + text + ": " + other.getKey() + " names it too");
                }
            }
            paths.put(key, path);
        }
        return new UnixSockets(paths, mode);
    }

    /** An octal mode of three or four digits (the setuid, setgid and sticky digit must be 0) as permissions. */
    static Set<PosixFilePermission> mode(String octal) {
        if (!octal.matches("0?[0-7]{3}")) {
            throw new IllegalArgumentException("expected an octal mode such as 0700 or 0770");
        }
        int bits = Integer.parseInt(octal, 8);
        PosixFilePermission[] lowestFirst = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_READ};
        Set<PosixFilePermission> mode = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < lowestFirst.length; bit++) {
            if ((bits & (1 << bit)) != 0) {
                mode.add(lowestFirst[bit]);
            }
        }
        return mode;
    }

    /**
     * The protocol's listener on its socket, when {@code key} names one: the same guard (so the connection limits
     * count both) and pipeline as its TCP listener; it joins {@code listeners}.
     */
    public void listen(NetworkThreads threads, String protocol, String key, int idleTimeout, ConnectionGuard guard,
                Consumer<ChannelPipeline> handlers, ChannelGroup listeners) throws StartupException {
        Path path = paths.get(key);
        if (path != null) {
            listeners.add(Listener.bindUnix(threads, protocol, path, mode, idleTimeout, guard, handlers));
            bound.add(protocol + " on " + path + " (Unix socket)");
        }
    }

    /** ", <protocol> on <path> (Unix socket)" for each socket bound, for the start-up log; empty for none. */
    public String describe() {
        return bound.isEmpty() ? "" : ", " + String.join(", ", bound);
    }
}
