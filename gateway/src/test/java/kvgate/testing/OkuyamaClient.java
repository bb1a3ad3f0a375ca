package kvgate.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** A blocking okuyama protocol client for tests: raw request lines out, reply lines in. */
public final class OkuyamaClient implements AutoCloseable {
    private final ClientConnection connection;
    private final OutputStream out;
    private final InputStream in;

    public OkuyamaClient(int port) throws IOException {
        this(ClientConnection.tcp(port, 10_000));
    }

    /** A client on the gateway's Unix domain socket. */
    public OkuyamaClient(Path socket) throws IOException {
        this(ClientConnection.unix(socket));
    }

    private OkuyamaClient(ClientConnection connection) {
        this.connection = connection;
        out = connection.out();
        in = new BufferedInputStream(connection.in());
    }

    /** The TCP socket; null on a Unix socket. */
    public Socket socket() {
        return connection.socket();
    }

    public static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    public static String text(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    /** Sends raw bytes (several lines, or a partial one). */
    public void send(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Sends raw bytes, any at all. */
    public void send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
    }

    /** Sends one line and reads one reply line. */
    public String call(String line) throws IOException {
        send(line + "\n");
        return read();
    }

    /** Sends one line and reads reply lines up to and including END. */
    public List<String> callUntilEnd(String line) throws IOException {
        return callUntil(line, "END");
    }

    /** Sends one line (or several, joined by newlines) and reads reply lines up to and including {@code last}. */
    public List<String> callUntil(String line, String last) throws IOException {
        send(line + "\n");
        List<String> lines = new ArrayList<>();
        String reply;
        do {
            reply = read();
            lines.add(reply);
        } while (!reply.equals(last));
        return lines;
    }

    /** One reply line; fails on a carriage return, which okuyama replies never carry. */
    public String read() throws IOException {
        String line = readOrEnd();
        if (line == null) {
            throw new IOException("connection closed by the server");
        }
        return line;
    }

    /**
     * One reply line, or null when the server has closed the connection between lines or reset it (a reset may cut
     * a reply short: what was in flight is lost). A stream that ends cleanly inside a line is an
     * {@link EOFException}; a server silent past the read timeout, a {@link SocketTimeoutException}.
     */
    public String readOrEnd() throws IOException {
        int first;
        try {
            first = in.read();
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return null; // reset by the server
        }
        if (first == -1) {
            return null;
        }
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int next = first;
        try {
            while (next != '\n') {
                if (next == -1) {
                    throw new EOFException("connection closed inside a reply line: " + line);
                }
                if (next == '\r') {
                    throw new IOException("reply line with a carriage return: " + line);
                }
                line.write(next);
                next = in.read();
            }
        } catch (SocketTimeoutException | EOFException e) {
            throw e;
        } catch (SocketException e) {
            return null; // reset by the server
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    /** Whether the server closed the connection (end of stream within the timeout). */
    public boolean closedByServer() {
        try {
            return in.read() == -1;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
