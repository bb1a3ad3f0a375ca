package kvgate.backend.okuyama;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import kvgate.spi.PipelinedConnection;

/**
 * One request line to a MasterNode and the one reply line it gets. A MasterNode answers a connection's lines one by
 * one, in order, so replies are matched to requests by position.
 */
final class MasterRequest extends PipelinedConnection.Request {
    /** The request without its line break. */
    final String line;
    /**
     * Whether sending it twice does no harm (a read): one written to a master that then went away is sent to the
     * next master. Any request not yet written moves to the next master whatever it is.
     */
    final boolean idempotent;
    final CompletableFuture<String> reply = new CompletableFuture<>();
    /** Whether it is a probe of an ejected master: it fails where it is, never moving to another master. */
    boolean probe;
    /** The masters it was sent to so far. */
    int tried;

    MasterRequest(String line, boolean idempotent) {
        this.line = line;
        this.idempotent = idempotent;
    }

    @Override
    public int encodedLength() {
        return line.length() + 1;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeCharSequence(line, StandardCharsets.US_ASCII);
        out.writeByte('\n');
    }
}
