package kvgate.memcached.text;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** A reply of memcached's text protocol. */
public sealed interface TextReply {
    Line STORED = line("STORED");
    Line NOT_STORED = line("NOT_STORED");
    Line EXISTS = line("EXISTS");
    Line NOT_FOUND = line("NOT_FOUND");
    Line DELETED = line("DELETED");
    Line TOUCHED = line("TOUCHED");
    Line OK = line("OK");
    Line END = line("END");
    Line ERROR = line("ERROR");

    /** One line; {@code bytes} ends in {@code \r\n}. */
    record Line(byte[] bytes) implements TextReply {
    }

    /** A line and a data block after it (a meta command's value): {@code line} ends in {@code \r\n}. */
    record Block(byte[] line, byte[] data) implements TextReply {
    }

    /** A retrieval's hits, each a {@code VALUE} line and its data block, then {@code END}. */
    record Values(List<Value> values) implements TextReply {
    }

    /** One hit; {@code withCas}: its {@code VALUE} line ends with the CAS unique. */
    record Value(byte[] key, int flags, byte[] data, long cas, boolean withCas) {
    }

    /** The line {@code text}, with its {@code \r\n}. */
    static Line line(String text) {
        return new Line((text + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
}
