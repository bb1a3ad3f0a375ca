package kvgate.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A client of the admin port: one command line out, the reply's lines back, up to and with its END or ERROR. */
public final class AdminClient implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    public AdminClient(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(30_000);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
    }

    /** Sends {@code line} and returns every line of the reply, the last one {@code END} or {@code ERROR ...}. */
    public List<String> call(String line) throws IOException {
        send(line + "\r\n");
        return reply();
    }

    public void send(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    public List<String> reply() throws IOException {
        List<String> lines = new ArrayList<>();
        while (true) {
            String line = in.readLine();
            if (line == null) {
                throw new IOException("the connection closed after " + lines);
            }
            lines.add(line);
            if (line.equals("END") || line.startsWith("ERROR")) {
                return lines;
            }
        }
    }

    /** Whether the gateway has closed the connection (reads end of stream). */
    public boolean closedByPeer() throws IOException {
        return in.readLine() == null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
