package kvgate.testing;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The connection under a test client: a TCP one to a loopback port, or one to a Unix domain socket.
 *
 * <p>A Unix socket's streams share the channel's lock: one thread reads or writes at a time, as the clients do.
 *
 * @param socket the TCP socket, for tests that handle it themselves (timeouts, half-close, reset); null on a Unix
 *     socket, whose reads have no timeout (its tests bound their time with JUnit's)
 */
public record ClientConnection(Socket socket, InputStream in, OutputStream out, Closeable closer) implements Closeable {

    /** A TCP connection to the loopback port, every read failing after {@code readTimeoutMillis}. */
    public static ClientConnection tcp(int port, int readTimeoutMillis) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(readTimeoutMillis);
        socket.setTcpNoDelay(true);
        return new ClientConnection(socket, socket.getInputStream(), socket.getOutputStream(), socket);
    }

    /** A connection to the Unix domain socket at {@code path}. */
    public static ClientConnection unix(Path path) throws IOException {
        SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
        return new ClientConnection(null, Channels.newInputStream(channel), Channels.newOutputStream(channel),
                channel);
    }

    @Override
    public void close() throws IOException {
        closer.close();
    }
}
