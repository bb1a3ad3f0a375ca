package kvgate.okuyama;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An okuyama MasterNode that answers each line as a test says (not at all where it says null; an initClient probe
 * always), taking {@code delayMillis} per line, and notes what it got: the lines, and how many arrived before the one
 * before them was answered (pipelined).
 */
final class FakeMaster implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0);
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    final List<String> lines = new CopyOnWriteArrayList<>();
    final AtomicInteger pipelined = new AtomicInteger();

    FakeMaster(long delayMillis, UnaryOperator<String> replies) throws Exception {
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket connection = socket.accept();
                    accepted.add(connection);
                    new Thread(() -> serve(connection, delayMillis, replies)).start();
                }
            } catch (Exception closed) {
                // closed by the test
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String address() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    private void serve(Socket connection, long delayMillis, UnaryOperator<String> replies) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                StandardCharsets.US_ASCII));
             OutputStream out = connection.getOutputStream()) {
            for (String line; (line = in.readLine()) != null; ) {
                lines.add(line);
                Thread.sleep(delayMillis);
                if (in.ready()) {
                    pipelined.incrementAndGet();
                }
                String reply = line.equals("0") ? "0,true,1572864" : replies.apply(line);
                if (reply == null) {
                    continue; // a master that takes the line and never answers it
                }
                out.write((reply + "\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (Exception e) {
            // the connection ended
        }
    }

    @Override
    public void close() throws Exception {
        socket.close();
        for (Socket connection : accepted) {
            connection.close();
        }
    }
}
