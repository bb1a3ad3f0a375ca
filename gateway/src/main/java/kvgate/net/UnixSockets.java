package kvgate.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
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
 * The stream protocols' Unix domain sockets as configured ({@code <protocol>.socket}, {@code socket_mode}), checked
 * before anything listens, so that a bad one stops the start with its key; {@link #listen} then binds each beside its
 * protocol's TCP listener (see {@link Listener#bindUnix}).
 */
public final class UnixSockets {
    /** The longest path Linux takes for a socket: sun_path holds 108 bytes with the terminating NUL. */
    static final int MAX_PATH = 107;

    private final Map<String, Path> paths;
    private final Set<PosixFilePermission> mode;

    private UnixSockets(Map<String, Path> paths, Set<PosixFilePermission> mode) {
        this.paths = paths;
        this.mode = mode;
    }

    /**
     * The sockets the settings ask for.
     *
     * @param protocols the protocols that may have one, {@code <protocol>.socket}
     */
    public static UnixSockets of(Settings settings, List<String> protocols) throws ConfigurationException {
        String octal = settings.text(GatewaySettings.SOCKET_MODE);
        Set<PosixFilePermission> mode;
        try {
            mode = mode(octal);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(GatewaySettings.SOCKET_MODE + " = " + octal + ": " + e.getMessage());
        }
        Map<String, Path> paths = new LinkedHashMap<>();
        for (String protocol : protocols) {
            String key = key(protocol);
            String text = settings.text(key);
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
                    throw new ConfigurationException(key + " = " + text + ": " + key(other.getKey())
                            + " names it too");
                }
            }
            paths.put(protocol, path);
        }
        return new UnixSockets(paths, mode);
    }

    /** The key of a protocol's socket. */
    public static String key(String protocol) {
        return protocol + ".socket";
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

    /** The path of the protocol's socket, or null when it has none. */
    Path path(String protocol) {
        return paths.get(protocol);
    }

    /**
     * The protocol's listener on its socket, when it has one: the same guard (so the connection limits count both)
     * and pipeline as its TCP listener.
     *
     * @return the socket's listener, or null when the protocol has no socket
     */
    Channel listen(NetworkThreads threads, String protocol, int idleTimeout, ConnectionGuard guard,
                   Consumer<ChannelPipeline> handlers) throws StartupException {
        Path path = paths.get(protocol);
        return path == null ? null : Listener.bindUnix(threads, protocol, path, mode, idleTimeout, guard, handlers);
    }
}
