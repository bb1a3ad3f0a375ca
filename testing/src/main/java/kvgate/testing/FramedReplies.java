package kvgate.testing;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;

/** Reading a framed reply that may instead be the end of the server's stream: what the binary test clients share. */
final class FramedReplies {
    /** The rest of a reply, read once its header is in. */
    @FunctionalInterface
    interface Rest<T> {
        T read(byte[] header) throws IOException;
    }

    private FramedReplies() {
    }

    /**
     * The next reply, or null when the server has closed the connection at a frame boundary or reset it (a reset may
     * cut a reply short: what was in flight is lost). A stream that ends cleanly inside a frame is an
     * {@link EOFException}; a server silent past the read timeout, a {@link SocketTimeoutException}.
     */
    static <T> T readOrEnd(DataInputStream in, int headerLength, Rest<T> rest) throws IOException {
        byte[] header = new byte[headerLength];
        try {
            int first = in.read();
            if (first == -1) {
                return null;
            }
            header[0] = (byte) first;
            in.readFully(header, 1, header.length - 1);
            return rest.read(header);
        } catch (SocketTimeoutException | EOFException e) {
            throw e;
        } catch (IOException e) {
            return null; // reset by the server
        }
    }
}
