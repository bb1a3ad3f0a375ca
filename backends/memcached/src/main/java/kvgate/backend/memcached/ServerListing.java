package kvgate.backend.memcached;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one memcached server holds, as its own {@code lru_crawler metadump all} (memcached 1.5+) lists it: every
 * live item's key and expiry, whoever stored it, one line each ({@code key=<URI-encoded key> exp=<Unix time or -1>
 * la=... cas=... fetch=... cls=... size=...}) and {@code END}. memcached's LRU crawler walks its items in the
 * background at its own pace, so the listing costs the server little; it is read on a connection of its own, in the
 * text protocol that the command belongs to, off the gateway's network threads.
 */
final class ServerListing {
    /** A line of the dump is a key of at most 250 bytes, three times as long encoded, and a few fields. */
    private static final int MAX_LINE = 4096;
    /** How often a server whose crawler is busy with another request is asked again, and how long apart. */
    private static final int BUSY_ATTEMPTS = 20;
    private static final long BUSY_WAIT_MILLIS = 250;

    private ServerListing() {
    }

    /** One item of the dump: its server key and expiry. */
    record Listed(byte[] serverKey, long expiresAtSeconds) {
        /** memcached's expiry of an item that never expires. */
        static final long NEVER = -1;
    }

    /** The server would not list its items; {@code getMessage} says what it answered. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * Lists every item of {@code server}, blocking the calling thread until the dump ends.
     *
     * @param timeoutMillis the longest wait for the connection and for each read
     * @throws Refused when the server answers the command with an error (dumping disabled with {@code -X}, text
     *     protocol off because it requires SASL, a version without the crawler)
     */
    static List<Listed> list(ServerAddress server, int timeoutMillis) throws IOException, Refused,
            InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = Connection.open(server, timeoutMillis)) {
                connection.out().write("lru_crawler metadump all\r\n".getBytes(StandardCharsets.US_ASCII));
                connection.out().flush();
                List<Listed> items = new ArrayList<>();
                InputStream in = connection.in();
                byte[] line;
                while ((line = readLine(in)) != null && startsWith(line, "key=")) {
                    items.add(parse(line));
                }
                if (line == null) {
                    throw new IOException("the server closed the connection before the dump's END");
                }
                if (startsWith(line, "END")) {
                    return items;
                }
                if (!startsWith(line, "BUSY") || attempt == BUSY_ATTEMPTS) {
                    throw new Refused(new String(line, StandardCharsets.US_ASCII).strip());
                }
            }
            Thread.sleep(BUSY_WAIT_MILLIS); // another dump or crawl under way: ask again shortly
        }
    }

    /** One line of the dump: the key decoded from its URI encoding, and the expiry. */
    static Listed parse(byte[] line) throws IOException {
        String text = new String(line, StandardCharsets.US_ASCII);
        byte[] key = null;
        long expiry = Listed.NEVER;
        for (String field : text.split(" ")) {
            if (field.startsWith("key=")) {
                key = uriDecode(field.substring(4));
            } else if (field.startsWith("exp=")) {
                try {
                    expiry = Long.parseLong(field.substring(4));
                } catch (NumberFormatException e) {
                    throw new IOException("a dump line with a bad expiry: " + text);
                }
            }
        }
        if (key == null || key.length == 0) {
            throw new IOException("a dump line without a key: " + text);
        }
        return new Listed(key, expiry);
    }

    /** memcached's URI encoding: {@code %XX} for every byte that is not unreserved. */
    static byte[] uriDecode(String encoded) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (i + 2 >= encoded.length()) {
                throw new IOException("a dump key cut short: " + encoded);
            }
            int high = Character.digit(encoded.charAt(i + 1), 16);
            int low = Character.digit(encoded.charAt(i + 2), 16);
            if (high < 0 || low < 0) {
                throw new IOException("a dump key with a bad escape: " + encoded);
            }
            out.write(high << 4 | low);
            i += 2;
        }
        return out.toByteArray();
    }

    private static boolean startsWith(byte[] line, String prefix) {
        if (line.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (line[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** A line without its {@code \r\n}, or null at the end of the stream. */
    private static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return Arrays.copyOf(bytes, length);
            }
            if (line.size() == MAX_LINE) {
                throw new IOException("a dump line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        return null;
    }

    /** A blocking connection to a server over TCP or its Unix domain socket. */
    private record Connection(AutoCloseable closer, InputStream in, OutputStream out) implements AutoCloseable {
        static Connection open(ServerAddress server, int timeoutMillis) throws IOException {
            if (server.endpoint() instanceof ServerAddress.UnixSocket unix) {
                SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    channel.connect(UnixDomainSocketAddress.of(unix.path()));
                } catch (IOException e) {
                    channel.close();
                    throw e;
                }
                // A Unix socket has no read timeout; a server that stops answering is its process gone, which ends
                // the stream.
                return new Connection(channel, new BufferedInputStream(Channels.newInputStream(channel)),
                        Channels.newOutputStream(channel));
            }
            ServerAddress.Tcp tcp = (ServerAddress.Tcp) server.endpoint();
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(tcp.host(), tcp.port()), timeoutMillis);
                socket.setSoTimeout(timeoutMillis);
            } catch (IOException e) {
                socket.close();
                throw e;
            }
            return new Connection(socket, new BufferedInputStream(socket.getInputStream(), 64 * 1024),
                    socket.getOutputStream());
        }

        @Override
        public void close() throws IOException {
            try {
                closer.close();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }
}
