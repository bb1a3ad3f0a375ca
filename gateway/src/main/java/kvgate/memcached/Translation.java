package kvgate.memcached;

import java.util.List;
import kvgate.spi.Operation;

/** What the translator makes of one frame: an answer of its own, or an operation for the dispatcher. */
sealed interface Translation {

    /** Answered without the backend; {@code reply} null for silence; {@code close} closes after the reply. */
    record Answer(BinaryResponse reply, boolean close) implements Translation {
    }

    /** Several replies to one request (stat). */
    record Answers(List<BinaryResponse> replies) implements Translation {
    }

    /** Dispatch the operation; the reply is made from its result by {@link BinaryTranslator#reply}. */
    record Forward(Operation operation, BinaryRequest request) implements Translation {
    }

    /** Dispatch the operation for its effect only, then answer {@code answer} whatever its result. */
    record ForwardThenAnswer(Operation operation, Answer answer) implements Translation {
    }
}
