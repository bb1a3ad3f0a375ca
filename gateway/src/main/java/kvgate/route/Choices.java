package kvgate.route;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code match=child, match=child} lists selector nodes are configured with. */
final class Choices {
    private Choices() {
    }

    /**
     * The pairs of a list, in order. A match may contain {@code =} (the last one in an entry separates it from the
     * child's name, which cannot) but no comma.
     *
     * @throws IllegalArgumentException naming the entry that is not {@code match=child}, or a match given twice
     */
    static Map<String, String> parse(String key, String list) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String entry : list.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int equals = entry.lastIndexOf('=');
            String match = equals < 0 ? "" : entry.substring(0, equals).strip();
            String child = equals < 0 ? "" : entry.substring(equals + 1).strip();
            if (match.isEmpty() || child.isEmpty()) {
                throw new IllegalArgumentException(key + ": expected match=route, found '" + entry.strip() + "'");
            }
            if (pairs.put(match, child) != null) {
                throw new IllegalArgumentException(key + ": '" + match + "' is given twice");
            }
        }
        return pairs;
    }
}
