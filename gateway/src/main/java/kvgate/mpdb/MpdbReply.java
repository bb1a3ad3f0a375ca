package kvgate.mpdb;

import java.util.Map;

/**
 * A reply: {@code oper} RESPONSE, the request's {@code nodeid} and {@code echo}, a {@code result} and an
 * {@code error}, empty on success.
 *
 * @param result the pairs answered (a null value for a missing key), or null for none
 */
public record MpdbReply(long echo, Long nodeid, Map<String, MpdbValue> result, String error) {

    static MpdbReply ok(MpdbDatagram.Numbered request, Map<String, MpdbValue> result) {
        return new MpdbReply(request.echo(), request.nodeid(), result, "");
    }

    static MpdbReply error(MpdbDatagram.Numbered request, String error) {
        return new MpdbReply(request.echo(), request.nodeid(), null, error);
    }
}
