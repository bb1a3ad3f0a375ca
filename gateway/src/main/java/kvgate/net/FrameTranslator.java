package kvgate.net;

import java.util.List;
import kvgate.spi.Operation;

/**
 * One connection's translator between a protocol's frames and the operation stream. One instance per connection,
 * so it may keep connection state (negotiated features, a counter ledger); it is only called on the connection's
 * event loop.
 *
 * @param <F> the protocol's request frame, which its decoder makes
 * @param <R> the protocol's reply message
 */
public interface FrameTranslator<F, R> {

    /** What to do with one decoded frame. */
    Translation<R> translate(F frame);

    /** Operations to send when the connection has closed, cleanly or not (releasing what it held). */
    default List<Operation> closed() {
        return List.of();
    }
}
