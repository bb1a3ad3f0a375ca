package kvgate.okuyama;

/** One request line of the okuyama protocol, as the line decoder cuts it. */
public sealed interface OkuyamaLine {

    /** A line without its terminator ({@code \n} or {@code \r\n}), one character per byte. */
    record Text(String text) implements OkuyamaLine {
    }

    /**
     * A line longer than {@code okuyama.max_line}; its bytes were dropped as they arrived, but for its first few
     * characters, which name the method so that the reply can be that method's own.
     */
    record TooLong(String head) implements OkuyamaLine {
    }

    /**
     * A line the gateway stopped reading to keep within {@code read_budget}: answered with its method's error, then
     * the connection is closed. {@code head} is as in {@link TooLong}.
     */
    record Shed(String head) implements OkuyamaLine {
    }
}
