package kvgate.net;

import java.util.concurrent.TimeUnit;

/**
 * How long a request may take to arrive whole, from its first byte (or the end of the request before it) to its
 * last, as nginx's {@code client_header_timeout} and {@code client_body_timeout} bound theirs: a client that holds a
 * partial request (a header and part of a value, or a line sent a byte a second) is cut off then, however steadily its
 * bytes trickle in, and the cut is counted and logged in {@code refusals}.
 *
 * @param nanos the time allowed; 0 for no deadline
 */
public record RequestDeadline(long nanos, RefusalLog refusals) {
    /** No deadline. */
    public static final RequestDeadline NONE = new RequestDeadline(0, null);

    /** A deadline of {@code seconds} (0: none) for {@code protocol}'s requests, counted as a refusal of it. */
    public static RequestDeadline of(int seconds, String protocol, Runnable counted) {
        if (seconds <= 0) {
            return NONE;
        }
        return new RequestDeadline(TimeUnit.SECONDS.toNanos(seconds), new RefusalLog("closing " + protocol
                + " connections whose request did not arrive whole within request_timeout_s (" + seconds + " s)",
                counted));
    }
}
