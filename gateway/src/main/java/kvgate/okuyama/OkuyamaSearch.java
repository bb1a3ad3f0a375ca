package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.decode;
import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.group;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaFields.keyList;
import static kvgate.okuyama.OkuyamaFields.number;
import static kvgate.okuyama.OkuyamaFields.tags;
import static kvgate.okuyama.OkuyamaReplies.GRAM_LIST;
import static kvgate.okuyama.OkuyamaReplies.TAG_LIST;
import static kvgate.okuyama.OkuyamaReplies.done;
import static kvgate.okuyama.OkuyamaReplies.error;
import static kvgate.okuyama.OkuyamaReplies.forward;
import static kvgate.okuyama.OkuyamaReplies.listFailure;
import static kvgate.okuyama.OkuyamaReplies.storeReply;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * okuyama's full-text search: setValueAndCreateIndex (42), searchValue (43), removeSearchIndex (44) and the
 * dictionary characters (50). The translator cuts values and words into n-grams ({@link NGrams}), which are the
 * index terms of {@link Operation.Index}, {@link Operation.Unindex} and {@link Operation.Search}.
 */
final class OkuyamaSearch {
    static final int DEFAULT_MAX_GRAM = 3;
    static final int DEFAULT_MIN_GRAM = 1;
    /** The longest n-gram indexed or looked up: a longer n asked for is cut to it, at indexing and search alike. */
    static final int MAX_GRAM = 32;
    /** The most n-grams one value may be cut into (runs of every length from min to max n, counted with repeats). */
    static final int MAX_GRAMS = 1_000_000;
    static final int DEFAULT_SEARCH_GRAM = 3;

    private final Namespace namespace;
    private final int maxValue;

    /** @param maxValue the largest value setValueAndCreateIndex takes */
    OkuyamaSearch(Namespace namespace, int maxValue) {
        this.namespace = namespace;
        this.maxValue = maxValue;
    }

    Translation<String> setAndIndex(String[] fields) {
        byte[] key = key(field(fields, 1));
        List<byte[]> tags = tags(field(fields, 2));
        field(fields, 3);
        byte[] value = OkuyamaFields.value(field(fields, 4), maxValue);
        String group = fields.length > 5 ? group(fields[5]) : "";
        int maxGram = fields.length > 6 ? number(fields[6], DEFAULT_MAX_GRAM) : DEFAULT_MAX_GRAM;
        int minGram = fields.length > 7 ? number(fields[7], DEFAULT_MIN_GRAM) : DEFAULT_MIN_GRAM;
        int min = Math.min(MAX_GRAM, Math.max(1, minGram));
        int max = Math.min(MAX_GRAM, Math.max(min, maxGram));
        String text = new String(value, StandardCharsets.UTF_8);
        if (NGrams.count(text, min, max) > MAX_GRAMS) {
            // Refused before anything is stored: cutting and listing that many grams would hold a network thread
            // for seconds, and the value must not be stored unsearchable.
            return Translation.answer("42,false,NG:the value has more than " + MAX_GRAMS + " n-grams of "
                    + min + " to " + max + " characters to index");
        }
        Operation.Store store = new Operation.Store(namespace, key, StoreMode.SET, value, 0, Item.NEVER, 0);
        // Tags and index entries first, as the reference, so a value that one of them cannot take is not stored.
        // An index entry whose value never got stored is harmless: a search answers only keys whose current value
        // holds the words.
        Operation.Tag tag = new Operation.Tag(namespace, key, tags);
        Operation.Index index = new Operation.Index(namespace, key, NGrams.of(text, min, max), group);
        OkuyamaMethod method = OkuyamaMethod.SET_VALUE_AND_CREATE_INDEX;
        return new Translation.Await<>(stream -> (tags.isEmpty()
                ? CompletableFuture.<Result>completedFuture(Result.DONE) : stream.dispatch(tag))
                .thenCompose(tagResult -> !tagResult.ok()
                ? CompletableFuture.completedFuture(listFailure(method, TAG_LIST, tagResult, false))
                : stream.dispatch(index).thenCompose(indexed -> !indexed.ok()
                        ? CompletableFuture.completedFuture(listFailure(method, GRAM_LIST, indexed, false))
                        : stream.dispatch(store).thenApply(stored -> storeReply(method, stored))))
                .thenApply(Translation::answer));
    }

    Translation<String> search(String[] fields) {
        String wordField = field(fields, 1);
        List<String> words = new ArrayList<>();
        for (String word : wordField.split(":")) {
            if (!word.isEmpty()) {
                words.add(new String(decode(word), StandardCharsets.UTF_8));
            }
        }
        words.removeIf(String::isEmpty);
        if (words.isEmpty()) {
            return Translation.answer("43,false,");
        }
        boolean all = fields.length > 2 && fields[2].strip().equals("1");
        String group = fields.length > 3 ? group(fields[3]) : "";
        int gram = Math.min(MAX_GRAM, Math.max(1, fields.length > 4 ? number(fields[4], DEFAULT_SEARCH_GRAM)
                : DEFAULT_SEARCH_GRAM));
        List<Operation.Search.Word> looked = new ArrayList<>(words.size());
        for (String word : words) {
            looked.add(new Operation.Search.Word(word, NGrams.lookup(word, gram)));
        }
        return forward(new Operation.Search(namespace, looked, all, group, gram),
                result -> result instanceof Result.Keys keys
                        ? keys.keys().isEmpty() ? "43,false," : "43,true," + keyList(keys.keys())
                        : error(OkuyamaMethod.SEARCH_VALUE, result));
    }

    /**
     * 44: {@code 44,<key>,<code>,<group>,<n>} takes the key off the index under the runs of 1 to n characters (3 when
     * n is not a number) of its current value, within the group, as the reference rebuilds and removes them; the
     * value stays, and a key without a value is answered as done.
     */
    Translation<String> removeIndex(String[] fields) {
        byte[] key = key(field(fields, 1));
        String group = fields.length > 3 ? group(fields[3]) : "";
        int n = Math.min(MAX_GRAM, Math.max(1, fields.length > 4 ? number(fields[4], DEFAULT_MAX_GRAM)
                : DEFAULT_MAX_GRAM));
        OkuyamaMethod method = OkuyamaMethod.REMOVE_SEARCH_INDEX;
        return new Translation.Await<>(stream -> stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                return done(read.status() == Status.NOT_FOUND ? "44,true," : error(method, read));
            }
            String text = new String(value.item().value(), StandardCharsets.UTF_8);
            if (NGrams.count(text, 1, n) > MAX_GRAMS) {
                return done("44,false,");
            }
            return stream.dispatch(new Operation.Unindex(namespace, key, NGrams.of(text, 1, n), group, n))
                    .thenApply(removed -> Translation.answer(removed.ok() ? "44,true," : error(method, removed)));
        }));
    }

    /**
     * 50: {@code 50,<word>|<word>...} (each word Base64) sets dictionary words, {@code 50,(B)} clears them. The
     * reference's index skips spaces and punctuation and cuts words to n characters, and its dictionary makes such
     * words searchable whole; the gateway's index keeps every run of characters of the value and a search checks the
     * value itself, so every word is found without one. The words are checked and answered as the reference answers
     * them, and change nothing the gateway answers.
     */
    static Translation<String> dictionary(String field) {
        String words = field.strip();
        if (words.isEmpty()) {
            return Translation.answer("50,false,");
        }
        if (!words.equals(OkuyamaFields.BLANK)) {
            for (String word : words.split("\\|")) {
                decode(word); // a word that is not Base64 is refused, as setValue's are
            }
        }
        return Translation.answer("50,true,");
    }
}
