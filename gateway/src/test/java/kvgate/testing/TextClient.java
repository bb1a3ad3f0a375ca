package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A blocking memcached text-protocol client for tests: raw requests out, whole replies in. A reply is one line, a
 * meta {@code VA} line with its value, or a {@code VALUE} or {@code STAT} listing with its {@code END}; each is
 * checked whole as it is read.
 */
public final class TextClient implements AutoCloseable {
    /** One reply line that is not part of a listing. */
    private static final Pattern LINE = Pattern.compile("STORED|NOT_STORED|EXISTS|NOT_FOUND|DELETED|TOUCHED|OK|END"
            + "|ERROR|ERROR: shutdown not enabled|VERSION .+|CLIENT_ERROR .+|SERVER_ERROR .+|\\d+"
            + "|(HD|EN|NF|NS|EX)( [^ ]+)*|MN|ME .+");
    private final ClientConnection connection;
    private final InputStream in;

    public TextClient(int port) throws IOException {
        this(ClientConnection.tcp(port, 10_000));
    }

    /** A client on the gateway's Unix domain socket. */
    public TextClient(Path socket) throws IOException {
        this(ClientConnection.unix(socket));
    }

    private TextClient(ClientConnection connection) {
        this.connection = connection;
        this.in = new BufferedInputStream(connection.in());
    }

    public ClientConnection connection() {
        return connection;
    }

    /** Sends raw bytes, one character a byte: any number of requests, or part of one. */
    public void send(String raw) throws IOException {
        connection.out().write(raw.getBytes(StandardCharsets.ISO_8859_1));
        connection.out().flush();
    }

    /** Sends {@code request} and reads its one reply. */
    public String call(String request) throws IOException {
        send(request);
        return read();
    }

    /** A storage command with its data block ({@code value} in UTF-8), and its reply. */
    public String store(String verb, String key, long flags, int exptime, String value) throws IOException {
        byte[] data = value.getBytes(StandardCharsets.UTF_8);
        return call(verb + " " + key + " " + flags + " " + exptime + " " + data.length + "\r\n"
                + new String(data, StandardCharsets.ISO_8859_1) + "\r\n");
    }

    /** The value {@code get} reads (as UTF-8), or null for a miss. */
    public String get(String key) throws IOException {
        String reply = call("get " + key + "\r\n");
        if (reply.equals("END\r\n")) {
            return null;
        }
        String[] lines = reply.split("\r\n", 3);
        assertTrue(lines[0].startsWith("VALUE " + key + " "), reply);
        return new String(lines[1].getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    /** The CAS unique {@code gets} reads for {@code key}, which must be there. */
    public long unique(String key) throws IOException {
        String reply = call("gets " + key + "\r\n");
        String[] head = reply.split("\r\n", 2)[0].split(" ");
        assertTrue(head.length == 5 && head[0].equals("VALUE") && head[1].equals(key), reply);
        return Long.parseUnsignedLong(head[4]);
    }

    /** The next whole reply, with its line ends. */
    public String read() throws IOException {
        return readReply(in);
    }

    /** Every whole reply until the server closes the connection. */
    public static List<String> replies(byte[] stream) throws IOException {
        List<String> replies = new ArrayList<>();
        InputStream in = new ByteArrayInputStream(stream);
        while (true) {
            in.mark(1);
            if (in.read() < 0) {
                return replies;
            }
            in.reset();
            replies.add(readReply(in));
        }
    }

    private static String readReply(InputStream in) throws IOException {
        StringBuilder reply = new StringBuilder();
        String line = line(in);
        reply.append(line).append("\r\n");
        if (line.startsWith("VA ")) {
            // A meta reply with a value: its length, then flags; the value and its end follow.
            int length = Integer.parseInt(line.split(" ")[1]);
            String block = new String(in.readNBytes(length + 2), StandardCharsets.ISO_8859_1);
            assertTrue(block.endsWith("\r\n"), "a value's end: " + block);
            reply.append(block);
        } else if (line.startsWith("VALUE ") || line.startsWith("STAT ")) {
            while (!line.equals("END")) {
                if (line.startsWith("VALUE ")) {
                    String[] words = line.split(" ");
                    assertTrue(words.length == 4 || words.length == 5, line);
                    byte[] data = in.readNBytes(Integer.parseInt(words[3]) + 2);
                    String block = new String(data, StandardCharsets.ISO_8859_1);
                    assertTrue(block.endsWith("\r\n"), "a value's end: " + block);
                    reply.append(block);
                } else {
                    assertTrue(line.startsWith("STAT "), "in a listing: " + line);
                }
                line = line(in);
                reply.append(line).append("\r\n");
            }
        } else {
            assertTrue(LINE.matcher(line).matches(), "not a reply of the protocol: " + line);
        }
        return reply.toString();
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        for (int b; (b = in.read()) >= 0; previous = b) {
            if (b == '\n') {
                assertEquals('\r', previous, "a line ending in a newline alone");
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
        throw new EOFException("a reply cut short: " + line.toString(StandardCharsets.ISO_8859_1));
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
