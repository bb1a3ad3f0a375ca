package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading HTTP responses off a raw socket, for tests that pipeline requests or send what no client would. */
public final class HttpHeads {
    private static final Pattern CONTENT_LENGTH = Pattern.compile("content-length: (\\d+)", Pattern.CASE_INSENSITIVE);

    private HttpHeads() {
    }

    /** The status line and headers of a response, up to the empty line (or what came before the stream ended). */
    public static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** The Content-Length a head gives; it must give one. */
    public static int contentLength(String head) {
        Matcher length = CONTENT_LENGTH.matcher(head);
        assertTrue(length.find(), head);
        return Integer.parseInt(length.group(1));
    }
}
