package kvgate.okuyama;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import kvgate.net.Translation;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The reply lines of the okuyama protocol that are more than a value: failures, refusals and the errors of each
 * method, worded as the reference server words them, down to the trailing commas its clients count on.
 */
final class OkuyamaReplies {
    /** The reply to a method the gateway does not serve, as the reference words it. */
    static final String PATTERN_NOT_FOUND = "-1,error,Request Pattern Not Found";
    /** What a store says when a tag's or an n-gram's key list, one item bounded by max_item_size, is full. */
    static final String TAG_LIST = "the tag's";
    static final String GRAM_LIST = "an n-gram's";

    private OkuyamaReplies() {
    }

    static String storeReply(OkuyamaMethod method, Result result) {
        if (result.ok()) {
            return method.replyCode() + ",true,OK";
        }
        Status status = result.status();
        if (method == OkuyamaMethod.SET_NEW_VALUE && (status == Status.EXISTS || status == Status.NOT_STORED)) {
            return "6,false,NG:Data has already been registered";
        }
        if (method == OkuyamaMethod.SET_VALUE_VERSION_CHECK
                && (status == Status.EXISTS || status == Status.NOT_FOUND)) {
            return "16,false,NG:Data has already been updated";
        }
        if (status == Status.TOO_LARGE) {
            return method.replyCode() + ",false,Value Length Error";
        }
        return error(method, result);
    }

    static Translation<String> forward(Operation operation, Function<Result, String> reply) {
        return new Translation.Forward<>(operation, result -> Translation.answer(reply.apply(result)));
    }

    static CompletionStage<Translation.Answer<String>> done(String line) {
        return CompletableFuture.completedFuture(Translation.answer(line));
    }

    /**
     * A server-side failure: okuyama's "error" reply. A backend that is down or busy is a temporary failure the
     * client may retry; the message says so.
     */
    static String error(OkuyamaMethod method, Result result) {
        return method.replyCode() + ",error," + failure(result);
    }

    static String failure(Result result) {
        return result.status() == Status.TEMPORARY_FAILURE ? "NG:Temporary failure, try again"
                : "NG:" + result.status().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /**
     * A store whose tagging or indexing failed: an error, as the reference answers it, saying why (a key list
     * full is {@code max_item_size}'s doing) and whether the value was stored, which depends on the method.
     *
     * @param list {@link #TAG_LIST} or {@link #GRAM_LIST}
     */
    static String listFailure(OkuyamaMethod method, String list, Result result, boolean stored) {
        String why = result.status() == Status.TOO_LARGE ? "NG:" + list + " key list is full (max_item_size)"
                : failure(result);
        return method.replyCode() + ",error," + why
                + (stored ? "; the value is stored untagged" : "; the value is not stored");
    }

    static String keyTooLong(OkuyamaMethod method) {
        if (method.list()) {
            return method.code() + ",false,List name Length Error";
        }
        return switch (method) {
            case GET_TAG_KEYS -> "4,false,Tag Length Error";
            case GET_VALUE_VERSION_CHECK -> "15,false,Key Length Error,";
            case GET_VALUE_AND_UPDATE_EXPIRE_TIME -> "17,false,";
            case REMOVE_TAG_FROM_KEY -> "40,false,";
            case SEARCH_VALUE -> "43,false,";
            case GET_TAG_VALUES -> "END";
            default -> method.replyCode() + ",false,Key Length Error";
        };
    }

    /** Text that is not Base64 names no key: reads find nothing, writes are refused. */
    static String undecodable(OkuyamaMethod method) {
        return switch (method) {
            case GET_VALUE, REMOVE_VALUE, GET_MULTI_VALUE, REMOVE_TAG_FROM_KEY, SEARCH_VALUE, GET_TAG_KEYS,
                    GET_VALUE_AND_UPDATE_EXPIRE_TIME ->
                    method.replyCode() + ",false,";
            case GET_VALUE_VERSION_CHECK -> "15,false,,";
            case INCR_VALUE, DECR_VALUE -> method.replyCode() + ",false,NG";
            case GET_TAG_VALUES -> "END";
            default -> method.replyCode() + ",false,NG:Invalid Base64";
        };
    }

    /**
     * A request refused before it reached a store, answered with {@code reply}: for getMultiValue followed by the
     * {@code END} its reply always ends with, which the reference client reads up to.
     */
    static Translation<String> refusal(OkuyamaMethod method, String reply) {
        return method == OkuyamaMethod.GET_MULTI_VALUE ? Translation.answers(List.of(reply, "END"))
                : Translation.answer(reply);
    }

    /**
     * The method a line's first characters name, or null when they are a number naming none.
     *
     * @throws NumberFormatException when they are no number
     */
    private static OkuyamaMethod methodOf(String head) {
        int comma = head.indexOf(',');
        return OkuyamaMethod.of(Integer.parseInt((comma < 0 ? head : head.substring(0, comma)).strip()));
    }

    /** A line over the limit: the method's own "too long" reply, so a client sees why. */
    static Translation<String> tooLongReply(String head) {
        OkuyamaMethod method;
        try {
            method = methodOf(head);
        } catch (NumberFormatException e) {
            return Translation.answer("-1,false,ERROR,Request Parameter Error");
        }
        if (method == null) {
            return Translation.answer(PATTERN_NOT_FOUND);
        }
        return switch (method) {
            case SET_VALUE, SET_NEW_VALUE, SET_VALUE_VERSION_CHECK, SET_VALUE_AND_CREATE_INDEX ->
                    Translation.answer(method.replyCode() + ",false,Value Length Error");
            default -> refusal(method, keyTooLong(method));
        };
    }

    /**
     * A line shed to keep within {@code read_budget}: the method's server error (okuyama's "error" reply, which its
     * client reports as a failure to retry), then the connection closes.
     */
    static Translation<String> shedReply(String head) {
        OkuyamaMethod method;
        try {
            method = methodOf(head);
        } catch (NumberFormatException e) {
            method = null;
        }
        return Translation.answerAndClose(method == null ? null
                : method.replyCode() + ",error,Server is out of memory for requests; retry later");
    }
}
