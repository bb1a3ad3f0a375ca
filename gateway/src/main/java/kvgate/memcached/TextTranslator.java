package kvgate.memcached;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import kvgate.collections.BucketManifests;
import kvgate.collections.CollectionsManifest;
import kvgate.memcached.couchbase.CertificateUsers;
import kvgate.memcached.couchbase.SaslExchange;
import kvgate.memcached.couchbase.SaslUsers;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextReply;
import kvgate.net.FrameTranslator;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Turns memcached text commands into operations and their results into memcached's replies. Text clients address
 * the default collection of the default bucket, the items a binary client without collections reads and writes, so
 * an item is the same whichever protocol wrote it.
 *
 * <p>When the memcached port requires authentication, a text connection authenticates as memcached 1.6 lets text
 * clients do: a {@code set} whose data is {@code <user> <password>} (key, flags and expiry ignored), answered
 * {@code STORED}; anything else before it is {@code CLIENT_ERROR unauthenticated}.
 */
public final class TextTranslator implements FrameTranslator<TextCommand, TextReply> {
    private static final TextReply.Line UNAUTHENTICATED = TextReply.line("CLIENT_ERROR unauthenticated");
    private static final TextReply.Line AUTHENTICATION_FAILURE = TextReply.line("CLIENT_ERROR authentication failure");
    private static final TextReply.Line BAD_FORMAT = TextReply.line("CLIENT_ERROR bad command line format");
    private static final TextReply.Line TOO_LARGE = TextReply.line("SERVER_ERROR object too large for cache");
    private static final TextReply.Line NON_NUMERIC =
            TextReply.line("CLIENT_ERROR cannot increment or decrement non-numeric value");
    private static final TextReply.Line VERSION = TextReply.line("VERSION " + MemcachedProtocol.VERSION);
    private static final TextReply.Values NOTHING = new TextReply.Values(List.of());
    /** As on the binary side: failed authentications in a row after which the connection is closed. */
    private static final int AUTHENTICATION_ATTEMPTS = 3;

    private final BucketManifests.Bucket bucket;
    private final Clock clock;
    private final MemcachedStats stats;
    private final SaslUsers users;
    /** What every backend of the route tree in force keeps of an item, for the meta flags that need it. */
    private final ItemFeatures features;
    /** The client's address, for the operator's log of refused logins. */
    private final Object peer;
    /** What the client's certificate makes of its login; asked at the first command, after the TLS handshake. */
    private Supplier<CertificateUsers.Login> certificate;
    private boolean authenticated;
    private int failedAuthentications;

    /**
     * @param users the users who may authenticate; null when clients need not
     * @param features what every backend of the route tree in force keeps of an item (some meta flags need it)
     * @param certificate what the client's certificate makes of its login (see {@link CertificateUsers}): a
     *     certificate naming a user authenticates the connection, as on the binary side
     */
    public TextTranslator(BucketManifests manifests, Clock clock, MemcachedStats stats, SaslUsers users,
                          ItemFeatures features, Object peer, Supplier<CertificateUsers.Login> certificate) {
        this.peer = peer;
        this.certificate = certificate;
        this.bucket = manifests.bucket(BucketManifests.DEFAULT_BUCKET);
        this.clock = clock;
        this.stats = stats;
        this.users = users;
        this.features = features;
        this.authenticated = users == null;
    }

    @Override
    public Translation<TextReply> translate(TextCommand command) {
        if (certificate != null) {
            CertificateUsers.Login login = certificate.get();
            certificate = null;
            if (login instanceof CertificateUsers.Refused) {
                return Translation.answerAndClose(null);
            }
            authenticated |= login instanceof CertificateUsers.User;
        }
        if (command instanceof TextCommand.Refused refused) {
            if (refused.line() == null) {
                return Translation.answerAndClose(null);
            }
            return silentIf(refused.noreply(), TextReply.line(refused.line()), refused.close());
        }
        if (!authenticated) {
            return authenticate(command);
        }
        if (command instanceof TextCommand.Quit) {
            return Translation.answerAndClose(null);
        }
        if (command instanceof TextCommand.Version) {
            return Translation.answer(VERSION);
        }
        if (command instanceof TextCommand.Verbosity verbosity) {
            return silentIf(verbosity.noreply(), TextReply.OK, false);
        }
        if (command instanceof TextCommand.Stats asked) {
            return stats(asked.arguments());
        }
        CollectionsManifest.Collection collection = collection();
        if (collection == null) {
            // No bucket named default is configured, or its manifest is not read yet.
            TextReply.Line why = TextReply.line(bucket == null ? "SERVER_ERROR no bucket named default"
                    : "SERVER_ERROR temporary failure");
            // A meta command's q hides its nominal reply only: its errors are always answered.
            return silentIf(!(command instanceof TextCommand.Meta) && command.noreply(), why, false);
        }
        if (command instanceof TextCommand.Retrieve retrieve) {
            return retrieve(retrieve, collection);
        }
        if (command instanceof TextCommand.Meta meta) {
            return MetaTranslation.translate(meta, collection, clock.millis(), features);
        }
        if (command instanceof TextCommand.Store store) {
            return store(store, collection);
        }
        if (command instanceof TextCommand.TooLarge tooLarge) {
            return tooLarge(tooLarge, collection);
        }
        if (command instanceof TextCommand.Delete delete) {
            return forward(new Operation.Delete(collection.namespace(), delete.key(), 0), delete.noreply(),
                    result -> result.ok() ? TextReply.DELETED : failure(result.status()));
        }
        if (command instanceof TextCommand.Arithmetic arithmetic) {
            return forward(new Operation.Arithmetic(collection.namespace(), arithmetic.key(), arithmetic.increment(),
                    arithmetic.delta(), 0, false, Item.NEVER, 0), arithmetic.noreply(),
                    result -> result instanceof Result.Number number
                            ? TextReply.line(Long.toUnsignedString(number.value())) : failure(result.status()));
        }
        if (command instanceof TextCommand.Touch touch) {
            return forward(new Operation.Touch(collection.namespace(), touch.key(),
                    MemcachedExpiry.expiresAt(touch.exptime(), collection, clock.millis())), touch.noreply(),
                    result -> result.ok() ? TextReply.TOUCHED : failure(result.status()));
        }
        if (command instanceof TextCommand.FlushAll flush) {
            return forward(new Operation.Flush(collection.namespace(),
                    MemcachedExpiry.delayMillis(flush.exptime(), clock.millis())), flush.noreply(),
                    result -> result.ok() ? TextReply.OK : failure(result.status()));
        }
        throw new IllegalStateException("unhandled text command " + command);
    }

    private CollectionsManifest.Collection collection() {
        CollectionsManifest manifest = bucket == null ? null : bucket.manifest();
        return manifest == null ? null : manifest.collection(0);
    }

    private Translation<TextReply> retrieve(TextCommand.Retrieve retrieve, CollectionsManifest.Collection collection) {
        long expiresAt = retrieve.touch()
                ? MemcachedExpiry.expiresAt(retrieve.exptime(), collection, clock.millis()) : Item.NEVER;
        if (retrieve.keys().size() == 1) {
            // Most gets name one key: no lists to gather results in.
            byte[] key = retrieve.keys().get(0);
            Operation operation = retrieve.touch() ? new Operation.Touch(collection.namespace(), key, expiresAt)
                    : new Operation.Get(collection.namespace(), key);
            return new Translation.Forward<>(operation, result -> Translation.answer(
                    result instanceof Result.Value value ? new TextReply.Values(List.of(hit(key, value.item(),
                            retrieve.withCas())))
                            : result.status() == Status.NOT_FOUND ? NOTHING : failure(result.status())));
        }
        List<Operation> operations = new ArrayList<>(retrieve.keys().size());
        for (byte[] key : retrieve.keys()) {
            operations.add(retrieve.touch() ? new Operation.Touch(collection.namespace(), key, expiresAt)
                    : new Operation.Get(collection.namespace(), key));
        }
        if (operations.isEmpty()) {
            return Translation.answer(NOTHING); // gat with an expiry and no key
        }
        return new Translation.ForwardAll<>(operations, results -> {
            List<TextReply.Value> hits = new ArrayList<>(results.size());
            for (int i = 0; i < results.size(); i++) {
                Result result = results.get(i);
                if (result instanceof Result.Value value) {
                    hits.add(hit(retrieve.keys().get(i), value.item(), retrieve.withCas()));
                } else if (result.status() != Status.NOT_FOUND) {
                    // A key the backend could not answer fails the request: a client must not take it for a miss.
                    return Translation.answer(failure(result.status()));
                }
            }
            return Translation.answer(new TextReply.Values(hits));
        });
    }

    private static TextReply.Value hit(byte[] key, Item item, boolean withCas) {
        return new TextReply.Value(key, item.flags(), item.value(), item.cas(), withCas);
    }

    private Translation<TextReply> store(TextCommand.Store store, CollectionsManifest.Collection collection) {
        byte[] key = store.key();
        if (store.verb() == TextCommand.StoreVerb.CAS && store.cas() == 0) {
            // No item has CAS 0: memcached compares and finds a difference, or nothing to compare with.
            return forward(new Operation.Get(collection.namespace(), key), store.noreply(),
                    result -> result.ok() ? TextReply.EXISTS : failure(result.status()));
        }
        long expiresAt = MemcachedExpiry.expiresAt(store.exptime(), collection, clock.millis());
        Operation operation = switch (store.verb()) {
            case SET, CAS -> new Operation.Store(collection.namespace(), key, StoreMode.SET, store.data(),
                    store.flags(), expiresAt, store.cas());
            case ADD -> new Operation.Store(collection.namespace(), key, StoreMode.ADD, store.data(), store.flags(),
                    expiresAt, 0);
            case REPLACE -> new Operation.Store(collection.namespace(), key, StoreMode.REPLACE, store.data(),
                    store.flags(), expiresAt, 0);
            case APPEND -> new Operation.Store(collection.namespace(), key, StoreMode.APPEND, store.data(), 0,
                    Item.NEVER, 0);
            case PREPEND -> new Operation.Store(collection.namespace(), key, StoreMode.PREPEND, store.data(), 0,
                    Item.NEVER, 0);
        };
        TextCommand.StoreVerb verb = store.verb();
        return forward(operation, store.noreply(), result -> {
            if (result.ok()) {
                return TextReply.STORED;
            }
            return switch (result.status()) {
                // add finds the key there, replace finds none: both are memcached's NOT_STORED.
                case EXISTS -> verb == TextCommand.StoreVerb.CAS ? TextReply.EXISTS : TextReply.NOT_STORED;
                case NOT_FOUND -> verb == TextCommand.StoreVerb.CAS ? TextReply.NOT_FOUND : TextReply.NOT_STORED;
                default -> failure(result.status());
            };
        });
    }

    /**
     * A value larger than the gateway stores. A {@code set} also removes the key, as memcached does: the old value
     * must not be read afterwards as if it were current.
     */
    private Translation<TextReply> tooLarge(TextCommand.TooLarge tooLarge, CollectionsManifest.Collection collection) {
        if (tooLarge.verb() != TextCommand.StoreVerb.SET) {
            return silentIf(tooLarge.noreply(), TOO_LARGE, false);
        }
        return forward(new Operation.Delete(collection.namespace(), tooLarge.key(), 0), tooLarge.noreply(),
                result -> TOO_LARGE);
    }

    private Translation<TextReply> stats(List<String> arguments) {
        Map<String, String> group = stats.group(arguments.isEmpty() ? "" : arguments.get(0));
        if (group == null) {
            return Translation.answer(TextReply.ERROR);
        }
        List<TextReply> lines = new ArrayList<>(group.size() + 1);
        group.forEach((name, value) -> lines.add(TextReply.line("STAT " + name + " " + value)));
        lines.add(TextReply.END);
        return Translation.answers(lines);
    }

    private Translation<TextReply> authenticate(TextCommand command) {
        if (!(command instanceof TextCommand.Store store) || store.verb() != TextCommand.StoreVerb.SET) {
            return Translation.answer(UNAUTHENTICATED);
        }
        List<String> words = new ArrayList<>();
        for (String word : new String(store.data(), StandardCharsets.UTF_8).split(" ")) {
            if (!word.isEmpty()) {
                words.add(word);
            }
        }
        if (words.size() < 2) {
            return Translation.answer(TextReply.line("CLIENT_ERROR bad authentication token format"));
        }
        byte[] plain = ("\0" + words.get(0) + "\0" + words.get(1)).getBytes(StandardCharsets.UTF_8);
        boolean ok = new SaslExchange(users).start("PLAIN", plain) instanceof SaslExchange.Done;
        stats.authenticated(ok);
        if (!ok) {
            stats.authenticationFailed(peer, words.get(0));
        }
        if (ok) {
            authenticated = true;
            failedAuthentications = 0;
            return Translation.answer(TextReply.STORED);
        }
        return ++failedAuthentications < AUTHENTICATION_ATTEMPTS ? Translation.answer(AUTHENTICATION_FAILURE)
                : Translation.answerAndClose(AUTHENTICATION_FAILURE);
    }

    /** memcached's reply to an operation that failed for {@code status}. */
    static TextReply.Line failure(Status status) {
        return switch (status) {
            case NOT_FOUND -> TextReply.NOT_FOUND;
            case EXISTS -> TextReply.EXISTS;
            case NOT_STORED -> TextReply.NOT_STORED;
            case TOO_LARGE -> TOO_LARGE;
            case NON_NUMERIC -> NON_NUMERIC;
            case INVALID -> BAD_FORMAT;
            case UNSUPPORTED -> TextReply.line("SERVER_ERROR not supported by the backend");
            case TEMPORARY_FAILURE -> TextReply.line("SERVER_ERROR temporary failure");
            case OK, LIMIT_REACHED, NOT_HELD, BACKEND_ERROR -> TextReply.line("SERVER_ERROR backend error");
        };
    }

    private static Translation<TextReply> forward(Operation operation, boolean noreply,
                                                  Function<Result, TextReply> reply) {
        return new Translation.Forward<>(operation, noreply ? result -> Translation.answer(null)
                : result -> Translation.answer(reply.apply(result)));
    }

    /** {@code reply}, or silence when the client asked for none (memcached hides errors then too). */
    private static Translation<TextReply> silentIf(boolean noreply, TextReply reply, boolean close) {
        TextReply sent = noreply ? null : reply;
        return close ? Translation.answerAndClose(sent) : Translation.answer(sent);
    }
}
