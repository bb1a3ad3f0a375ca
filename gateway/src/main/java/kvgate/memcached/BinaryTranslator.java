package kvgate.memcached;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import kvgate.collections.BucketManifests;
import kvgate.collections.CollectionsManifest;
import kvgate.collections.Leb128;
import kvgate.memcached.binary.BinaryFrame;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryRequest;
import kvgate.memcached.binary.BinaryResponse;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.memcached.binary.FrameExtras;
import kvgate.memcached.binary.MalformedFrame;
import kvgate.memcached.binary.Opcode;
import kvgate.memcached.couchbase.ClusterConfig;
import kvgate.memcached.couchbase.CollectionsCommands;
import kvgate.memcached.couchbase.CertificateUsers;
import kvgate.memcached.couchbase.SaslExchange;
import kvgate.memcached.couchbase.SaslUsers;
import kvgate.memcached.couchbase.SubdocExecution;
import kvgate.memcached.couchbase.SubdocRequest;
import kvgate.net.FrameTranslator;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Turns memcached binary requests into operations and operation results into replies, with memcached's rules:
 * which replies carry a CAS, flags or the key, which quiet commands stay silent, what each error says; and
 * Couchbase's: HELLO features, the selected bucket, collection ids in document keys, the collections commands.
 *
 * <p>Every document lives in a collection of a bucket, and each collection is a namespace of the operation stream.
 * Without collections negotiated, keys address the default collection of the selected bucket (the {@code default}
 * bucket until a SelectBucket, when one is configured).
 */
public final class BinaryTranslator implements FrameTranslator<BinaryFrame, BinaryResponse> {
    private static final byte[] VERSION_BYTES = MemcachedProtocol.VERSION.getBytes(StandardCharsets.US_ASCII);
    /** Incr/decr expiry meaning "do not create a missing counter". */
    private static final int NO_CREATE = 0xffffffff;

    /**
     * The HELLO features granted when asked: XError, SelectBucket, Json, AltRequestSupport, Collections, PreserveTtl
     * (where a backend can keep an expiry). Others are dropped.
     */
    static final Set<Integer> GRANTABLE = Set.of(0x07, 0x08, 0x0b, 0x10, 0x12, 0x14);
    private static final int FEATURE_XERROR = 0x07;
    private static final int FEATURE_JSON = 0x0b;
    private static final int FEATURE_ALT_REQUEST = 0x10;
    private static final int FEATURE_COLLECTIONS = 0x12;
    private static final int FEATURE_PRESERVE_TTL = 0x14;
    private static final int DATATYPE_JSON = 0x01;
    /** The longest logical key in a collection other than the default one: 251 bytes less a 5-byte id. */
    private static final int MAX_COLLECTION_KEY = Opcode.MAX_COLLECTION_KEY_LENGTH - Leb128.MAX_LENGTH;
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Failed authentications in a row after which a connection is closed: a client that knows its password needs
     * one, and a guesser must reconnect for every few guesses.
     */
    private static final int AUTHENTICATION_ATTEMPTS = 3;
    /** memcached's answer to a successful PLAIN authentication. */
    private static final byte[] AUTHENTICATED = "Authenticated".getBytes(StandardCharsets.US_ASCII);

    /** Where a document request goes, or why it goes nowhere. */
    private sealed interface Target permits Document, Refused {
    }

    /** A document's collection and its key without the collection id. */
    private record Document(CollectionsManifest.Collection collection, byte[] key) implements Target {
        Namespace namespace() {
            return collection.namespace();
        }
    }

    /** The error reply to a document request that cannot be served. */
    private record Refused(BinaryResponse reply) implements Target {
    }

    private final BucketManifests manifests;
    private final Clock clock;
    private final MemcachedStats stats;
    /** The client's address, for the operator's log of refused logins and buckets. */
    private final Object peer;
    /** The users of the password file; null when none is configured and no request needs authentication. */
    private final SaslUsers users;
    private final SaslExchange sasl;
    private final ClusterConfig cluster;
    /** The largest document a sub-document change may make. */
    private final int maxItemSize;
    /** Whether a backend of the route tree in force keeps an item's expiry through a store that asks it to. */
    private final BooleanSupplier keepsExpiry;
    /** What the client's certificate makes of its login; asked at the first request, after the TLS handshake. */
    private Supplier<CertificateUsers.Login> certificate;
    /** The user the connection authenticated as; null before (or after a failed attempt). */
    private String user;
    /** Whether {@link #user} came from the client's certificate, which SASL may not then change. */
    private boolean byCertificate;
    private int failedAuthentications;
    /** Whether the client selected a bucket, rather than using the default one without asking. */
    private boolean bucketSelected;
    private boolean collections;
    private boolean json;
    /** Whether requests may come in the alternative framing (magic 0x08), with framing extras. */
    private boolean altRequests;
    /** Whether errors may carry a JSON body saying why (XError granted). */
    private boolean xerror;
    /** The selected bucket; null when none is selected and there is no default bucket. */
    private BucketManifests.Bucket bucket;

    /**
     * @param users the users who may authenticate; null when clients need not
     * @param cluster the cluster map Couchbase clients are given, naming the port this connection reached
     * @param maxItemSize the largest document a sub-document change may make
     * @param keepsExpiry whether a backend of the route tree in force keeps an item's expiry through a store
     *     ({@link kvgate.spi.Capability#KEEP_EXPIRY}): HELLO grants PreserveTtl only then, so that where none can, a
     *     Couchbase SDK refuses {@code preserveExpiry} itself, as for a server without the feature
     * @param certificate what the client's certificate makes of its login (see {@link CertificateUsers})
     */
    public BinaryTranslator(BucketManifests manifests, Clock clock, MemcachedStats stats, SaslUsers users,
                            ClusterConfig cluster, int maxItemSize, BooleanSupplier keepsExpiry, Object peer,
                            Supplier<CertificateUsers.Login> certificate) {
        this.peer = peer;
        this.certificate = certificate;
        this.manifests = manifests;
        this.clock = clock;
        this.stats = stats;
        this.users = users;
        this.sasl = new SaslExchange(users);
        this.cluster = cluster;
        this.maxItemSize = maxItemSize;
        this.keepsExpiry = keepsExpiry;
        this.bucket = manifests.bucket(BucketManifests.DEFAULT_BUCKET);
    }

    @Override
    public Translation<BinaryResponse> translate(BinaryFrame frame) {
        if (certificate != null) {
            CertificateUsers.Login login = certificate.get();
            certificate = null;
            if (login instanceof CertificateUsers.Refused) {
                // As a Couchbase server whose certificate mapping finds no user: the connection is closed.
                return Translation.answerAndClose(null);
            }
            if (login instanceof CertificateUsers.User named) {
                user = named.name();
                byCertificate = true;
            }
        }
        if (frame instanceof MalformedFrame malformed) {
            return translateMalformed(malformed);
        }
        BinaryRequest request = (BinaryRequest) frame;
        Opcode opcode = Opcode.of(request.opcode());
        if (opcode == null) {
            return error(request, BinaryStatus.UNKNOWN_COMMAND);
        }
        if (request.framing() != null && !altRequests) {
            return error(request, BinaryStatus.INVALID_ARGUMENTS); // a framing the client did not negotiate
        }
        if (!authenticated() && !opcode.beforeAuthentication()) {
            return error(request, BinaryStatus.AUTH_ERROR);
        }
        FrameExtras framing;
        try {
            framing = request.framing() == null ? FrameExtras.NONE : FrameExtras.read(request.framing(), opcode);
        } catch (BinaryRefusal refusal) {
            return error(request, refusal.status());
        }
        // A sub-document command's value is paths and fragments, not a document: raw, as Couchbase requires.
        boolean dataTypeFine = request.dataType() == 0
                || json && request.dataType() == DATATYPE_JSON && opcode.namesDocument() && !opcode.subdocument();
        if (!dataTypeFine || opcode.shapeProblem(request, collections) != null) {
            return error(request, BinaryStatus.INVALID_ARGUMENTS);
        }
        if (opcode.namesDocument()) {
            Target target = target(request.opcode(), request.opaque(), request.key());
            return target instanceof Refused refused ? answer(refused.reply())
                    : translateDocument(request, opcode, (Document) target, framing);
        }
        return switch (opcode) {
            case FLUSH, FLUSHQ -> {
                Target target = target(request.opcode(), request.opaque(), null);
                yield target instanceof Refused refused ? answer(refused.reply()) : forward(new Operation.Flush(
                        ((Document) target).namespace(),
                        request.extras().length == 4
                                ? MemcachedExpiry.delayMillis(ByteBuffer.wrap(request.extras()).getInt(0),
                                clock.millis()) : 0), request);
            }
            case NOOP, VERBOSITY -> answer(BinaryResponse.success(request));
            case VERSION -> answer(BinaryResponse.value(request, BinaryResponse.EMPTY, VERSION_BYTES));
            case QUIT -> Translation.answerAndClose(BinaryResponse.success(request));
            case QUITQ -> Translation.answerAndClose(null);
            case STAT -> stat(request);
            case HELLO -> hello(request);
            case SASL_LIST_MECHS -> answer(BinaryResponse.value(request, BinaryResponse.EMPTY,
                    SaslExchange.mechanisms(users).getBytes(StandardCharsets.US_ASCII)));
            case SASL_AUTH, SASL_STEP -> authenticate(request, opcode == Opcode.SASL_AUTH);
            case GET_ERROR_MAP -> answer(BinaryResponse.value(request, BinaryResponse.EMPTY,
                    BinaryStatus.errorMap(ByteBuffer.wrap(request.value()).getShort() & 0xffff)));
            case SELECT_BUCKET -> selectBucket(request);
            // A client that selected no bucket asks for the cluster's map, which has no buckets: as a Couchbase
            // server without one, "no bucket" (the client then stops asking on that connection).
            case GET_CLUSTER_CONFIG -> bucketSelected ? answer(BinaryResponse.value(request, BinaryResponse.EMPTY,
                    cluster.json(bucket.name()))) : error(request, BinaryStatus.NO_BUCKET);
            case SET_COLLECTIONS_MANIFEST -> {
                if (bucket == null) {
                    yield error(request, BinaryStatus.NO_BUCKET);
                }
                String target = bucket.name();
                yield new Translation.Await<>(stream -> CollectionsCommands.setManifest(request, manifests, target));
            }
            case GET_COLLECTIONS_MANIFEST -> manifest() == null ? error(request, whyNoManifest())
                    : answer(CollectionsCommands.manifest(request, manifest()));
            case GET_COLLECTION_ID, GET_SCOPE_ID -> manifest() == null ? error(request, whyNoManifest())
                    : answer(CollectionsCommands.lookUp(request, opcode == Opcode.GET_COLLECTION_ID, manifest()));
            default -> throw new IllegalStateException(opcode + " names a document");
        };
    }

    private Translation<BinaryResponse> translateDocument(BinaryRequest request, Opcode opcode, Document document,
                                                          FrameExtras framing) {
        // Gets, most of the traffic, read neither the clock nor the extras: only the requests that need them do.
        Namespace namespace = document.namespace();
        byte[] key = document.key();
        if (opcode.subdocument()) {
            return subdocument(request, opcode, document, framing.preserveTtl());
        }
        return switch (opcode) {
            case GET, GETQ, GETK, GETKQ -> forward(new Operation.Get(namespace, key), request);
            // The version byte, when sent, is 1 or 2 (2 adds the datatype to the reply).
            case GET_META -> request.extras().length == 1 && (request.extras()[0] < 1 || request.extras()[0] > 2)
                    ? error(request, BinaryStatus.INVALID_ARGUMENTS)
                    : forward(new Operation.Get(namespace, key), request);
            case SET, SETQ -> store(request, document, StoreMode.SET, framing.preserveTtl());
            case ADD, ADDQ -> request.cas() != 0
                    // An add compares with nothing, so a CAS makes no sense (Couchbase refuses it too).
                    ? error(request, BinaryStatus.INVALID_ARGUMENTS)
                    : store(request, document, StoreMode.ADD, false);
            case REPLACE, REPLACEQ -> store(request, document, StoreMode.REPLACE, framing.preserveTtl());
            case APPEND, APPENDQ -> forward(new Operation.Store(namespace, key, StoreMode.APPEND, request.value(), 0,
                    Item.NEVER, request.cas()), request);
            case PREPEND, PREPENDQ -> forward(new Operation.Store(namespace, key, StoreMode.PREPEND, request.value(),
                    0, Item.NEVER, request.cas()), request);
            case DELETE, DELETEQ -> forward(new Operation.Delete(namespace, key, request.cas()), request);
            case INCREMENT, INCREMENTQ, DECREMENT, DECREMENTQ -> {
                ByteBuffer extras = ByteBuffer.wrap(request.extras());
                long delta = extras.getLong(0);
                long initial = extras.getLong(8);
                int expiry = extras.getInt(16);
                boolean increment = opcode == Opcode.INCREMENT || opcode == Opcode.INCREMENTQ;
                yield forward(new Operation.Arithmetic(namespace, key, increment, delta, initial,
                        expiry != NO_CREATE, expiry == NO_CREATE ? Item.NEVER
                        : expiresAt(expiry, document), request.cas()), request);
            }
            case TOUCH, GAT, GATQ -> forward(new Operation.Touch(namespace, key,
                    expiresAt(ByteBuffer.wrap(request.extras()).getInt(0), document)), request);
            default -> throw new IllegalStateException(opcode + " names no document");
        };
    }

    /**
     * A sub-document command: read (a malformed one is refused whole), then run as reads and a compare-and-swap
     * write; the connection's later requests wait for it, as they would on a Couchbase server.
     */
    private Translation<BinaryResponse> subdocument(BinaryRequest request, Opcode opcode, Document document,
                                                    boolean preserveTtl) {
        SubdocRequest subdoc;
        try {
            subdoc = SubdocRequest.read(opcode, request);
        } catch (BinaryRefusal failure) {
            return error(request, failure.status());
        }
        long expiresAt = subdoc.mutation() ? expiresAt(subdoc.expiry(), document) : Item.NEVER;
        return new Translation.Await<>(stream -> new SubdocExecution(stream, request, subdoc, document.namespace(),
                document.key(), expiresAt, preserveTtl, maxItemSize).run()
                .exceptionally(failure -> BinaryResponse.error(request.opcode(), request.opaque(),
                        BinaryStatus.INTERNAL_ERROR))
                .thenApply(Translation::answer));
    }

    /** When an item given memcached's {@code expiry} expires, within its collection's maxTTL. */
    private long expiresAt(int expiry, Document document) {
        return MemcachedExpiry.expiresAt(expiry, document.collection(), clock.millis());
    }

    /**
     * The collection and logical key of a document request, or its refusal: no bucket, no manifest known yet, a
     * malformed collection id, a key too long for its collection, or a collection the manifest does not have. A null
     * {@code key} asks for the default collection.
     */
    private Target target(int opcode, int opaque, byte[] key) {
        CollectionsManifest manifest = manifest();
        if (manifest == null) {
            return new Refused(BinaryResponse.error(opcode, opaque, whyNoManifest()));
        }
        long collectionId = 0;
        byte[] logicalKey = key;
        if (collections && key != null) {
            long decoded = Leb128.decode(key);
            int logicalLength = key.length - Leb128.length(decoded);
            if (decoded == Leb128.INVALID || logicalLength == 0
                    || Leb128.id(decoded) != 0 && logicalLength > MAX_COLLECTION_KEY) {
                return new Refused(BinaryResponse.error(opcode, opaque, BinaryStatus.INVALID_ARGUMENTS));
            }
            collectionId = Leb128.id(decoded);
            logicalKey = Arrays.copyOfRange(key, Leb128.length(decoded), key.length);
        }
        CollectionsManifest.Collection collection = manifest.collection(collectionId);
        if (collection == null) {
            return new Refused(CollectionsCommands.unknown(opcode, opaque, BinaryStatus.UNKNOWN_COLLECTION, manifest));
        }
        return new Document(collection, logicalKey);
    }

    /** The selected bucket's manifest, or null when no bucket is selected or its manifest is not known yet. */
    private CollectionsManifest manifest() {
        return bucket == null ? null : bucket.manifest();
    }

    /** The status for a request that needs {@link #manifest()} when it is null. */
    private BinaryStatus whyNoManifest() {
        return bucket == null ? BinaryStatus.NO_BUCKET : BinaryStatus.TEMPORARY_FAILURE;
    }

    /** The reply to a forwarded request, or null when the protocol wants silence. */
    private BinaryResponse reply(BinaryRequest request, Result result) {
        Opcode opcode = Opcode.of(request.opcode());
        if (!result.ok()) {
            return errorReply(request, opcode, result.status());
        }
        return switch (opcode) {
            case GET, GETQ, GAT, GATQ -> item(request, ((Result.Value) result).item(), BinaryResponse.EMPTY, true);
            case GETK, GETKQ -> item(request, ((Result.Value) result).item(), request.key(), true);
            case TOUCH -> item(request, ((Result.Value) result).item(), BinaryResponse.EMPTY, false);
            case GET_META -> meta(request, ((Result.Value) result).item());
            case SET, ADD, REPLACE, APPEND, PREPEND ->
                    BinaryResponse.success(request, ((Result.Stored) result).cas(), BinaryResponse.EMPTY);
            case INCREMENT, DECREMENT -> {
                Result.Number number = (Result.Number) result;
                yield BinaryResponse.success(request, number.cas(), BinaryResponse.u64(number.value()));
            }
            case DELETE, FLUSH -> BinaryResponse.success(request);
            case SETQ, ADDQ, REPLACEQ, APPENDQ, PREPENDQ, DELETEQ, INCREMENTQ, DECREMENTQ, FLUSHQ -> null;
            case QUIT, QUITQ, NOOP, VERSION, STAT, VERBOSITY, HELLO, SASL_LIST_MECHS, SASL_AUTH, SASL_STEP,
                    SELECT_BUCKET, GET_CLUSTER_CONFIG, SET_COLLECTIONS_MANIFEST, GET_COLLECTIONS_MANIFEST,
                    GET_COLLECTION_ID, GET_SCOPE_ID, GET_ERROR_MAP ->
                    throw new IllegalStateException(opcode + " is answered without the backend");
            case SUBDOC_GET, SUBDOC_EXISTS, SUBDOC_DICT_ADD, SUBDOC_DICT_UPSERT, SUBDOC_DELETE, SUBDOC_REPLACE,
                    SUBDOC_ARRAY_PUSH_LAST, SUBDOC_ARRAY_PUSH_FIRST, SUBDOC_ARRAY_INSERT, SUBDOC_ARRAY_ADD_UNIQUE,
                    SUBDOC_COUNTER, SUBDOC_MULTI_LOOKUP, SUBDOC_MULTI_MUTATION, SUBDOC_GET_COUNT ->
                    throw new IllegalStateException(opcode + " is answered by its own execution");
        };
    }

    private static BinaryResponse errorReply(BinaryRequest request, Opcode opcode, Status status) {
        if (status == Status.NOT_FOUND) {
            switch (opcode) {
                case GETQ, GETKQ, GATQ -> {
                    return null; // a quiet get answers hits only
                }
                case GETK -> {
                    // memcached names the missing key in a GETK miss, so a client can match it without the opaque.
                    return new BinaryResponse(request.opcode(), BinaryStatus.KEY_NOT_FOUND.code(), request.opaque(),
                            0, BinaryResponse.EMPTY, request.key(), BinaryResponse.EMPTY);
                }
                default -> {
                }
            }
        }
        return BinaryResponse.error(request.opcode(), request.opaque(), BinaryStatus.of(status));
    }

    private static BinaryResponse item(BinaryRequest request, Item item, byte[] key, boolean withValue) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), item.cas(), BinaryResponse.u32(item.flags()),
                key, withValue ? item.value() : BinaryResponse.EMPTY);
    }

    /**
     * GetMeta's reply: no value, extras of a deleted flag (always 0: a removed item is gone, not a tombstone), the
     * flags, the expiry as a Unix time (0: none), a sequence number (the CAS, which grows with every change as a
     * sequence number does) and, for version 2, the datatype (raw).
     */
    private static BinaryResponse meta(BinaryRequest request, Item item) {
        boolean withDatatype = request.extras().length == 1 && request.extras()[0] == 2;
        ByteBuffer extras = ByteBuffer.allocate(withDatatype ? 21 : 20);
        extras.putInt(0).putInt(item.flags()).putInt(item.expiresAt() == Item.NEVER ? 0
                : (int) (item.expiresAt() / 1000)).putLong(item.cas());
        return new BinaryResponse(request.opcode(), 0, request.opaque(), item.cas(), extras.array(),
                BinaryResponse.EMPTY, BinaryResponse.EMPTY);
    }

    /** A set, add or replace; {@code keepExpiry}: an item already there keeps its expiry (Preserve TTL). */
    private Translation<BinaryResponse> store(BinaryRequest request, Document document, StoreMode mode,
                                              boolean keepExpiry) {
        ByteBuffer extras = ByteBuffer.wrap(request.extras());
        return forward(new Operation.Store(document.namespace(), document.key(), mode, request.value(),
                extras.getInt(0), expiresAt(extras.getInt(4), document), request.cas(), keepExpiry), request);
    }

    private Translation<BinaryResponse> translateMalformed(MalformedFrame frame) {
        BinaryResponse error = BinaryResponse.error(frame.opcode(), frame.opaque(), frame.status());
        Translation.Answer<BinaryResponse> answer = frame.closeConnection()
                ? Translation.answerAndClose(error) : Translation.answer(error);
        Opcode opcode = Opcode.of(frame.opcode());
        boolean set = opcode == Opcode.SET || opcode == Opcode.SETQ;
        int maxKeyLength = collections ? Opcode.MAX_COLLECTION_KEY_LENGTH : Opcode.MAX_KEY_LENGTH;
        // The removal below is a write: a connection that must authenticate first gets the error alone.
        if (frame.status() == BinaryStatus.TOO_LARGE && set && frame.key().length > 0
                && frame.key().length <= maxKeyLength && authenticated()) {
            Target target = target(frame.opcode(), frame.opaque(), frame.key());
            if (target instanceof Refused refused) {
                // A malformed key or no bucket is refused before the value's size matters; a collection the
                // manifest lacks is not: nothing of it to drop, and the size answers first (as a Couchbase server,
                // which allocates the item, too big or not, before it stores it in a collection).
                boolean unknownCollection = refused.reply().status() == BinaryStatus.UNKNOWN_COLLECTION.code();
                return unknownCollection ? answer : answer(refused.reply());
            }
            Document document = (Document) target;
            // As memcached does: a set that failed for size must not leave the old value readable as if current.
            return new Translation.Forward<>(new Operation.Delete(document.namespace(), document.key(), 0),
                    result -> answer);
        }
        return answer;
    }

    private Translation<BinaryResponse> stat(BinaryRequest request) {
        Map<String, String> group = stats.group(new String(request.key(), StandardCharsets.US_ASCII));
        if (group == null) {
            return error(request, BinaryStatus.KEY_NOT_FOUND);
        }
        List<BinaryResponse> replies = new ArrayList<>(group.size() + 1);
        group.forEach((name, value) -> replies.add(BinaryResponse.value(request,
                name.getBytes(StandardCharsets.US_ASCII), value.getBytes(StandardCharsets.US_ASCII))));
        replies.add(BinaryResponse.success(request)); // the empty terminator
        return Translation.answers(replies);
    }

    /**
     * Grants the features of {@link #GRANTABLE} that the client asks for and lists them in the reply, in the
     * client's order; a new HELLO replaces the earlier negotiation.
     */
    private Translation<BinaryResponse> hello(BinaryRequest request) {
        ByteBuffer asked = ByteBuffer.wrap(request.value());
        Set<Integer> granted = new LinkedHashSet<>();
        while (asked.remaining() >= 2) {
            int feature = asked.getShort() & 0xffff;
            if (GRANTABLE.contains(feature) && (feature != FEATURE_PRESERVE_TTL || keepsExpiry.getAsBoolean())) {
                granted.add(feature);
            }
        }
        collections = granted.contains(FEATURE_COLLECTIONS);
        json = granted.contains(FEATURE_JSON);
        altRequests = granted.contains(FEATURE_ALT_REQUEST);
        xerror = granted.contains(FEATURE_XERROR);
        ByteBuffer reply = ByteBuffer.allocate(granted.size() * 2);
        granted.forEach(feature -> reply.putShort((short) (int) feature));
        return answer(BinaryResponse.value(request, BinaryResponse.EMPTY, reply.array()));
    }

    /** Whether the connection may be served: it authenticated, or nothing needs it to. */
    private boolean authenticated() {
        return users == null || user != null;
    }

    /**
     * SASL_AUTH starts an exchange, SASL_STEP continues it; a failure leaves the connection unauthenticated (as a
     * new exchange does until it succeeds), so that a client cannot keep a user it failed to prove.
     */
    private Translation<BinaryResponse> authenticate(BinaryRequest request, boolean start) {
        if (byCertificate) {
            // A connection its certificate authenticated keeps that user, as on a Couchbase server.
            return error(request, BinaryStatus.NOT_SUPPORTED);
        }
        String mechanism = new String(request.key(), StandardCharsets.US_ASCII);
        user = null;
        SaslExchange.Step step = start ? sasl.start(mechanism, request.value()) : sasl.step(mechanism, request.value());
        if (!(step instanceof SaslExchange.Continue)) {
            stats.authenticated(step instanceof SaslExchange.Done);
        }
        if (step instanceof SaslExchange.Failed failed) {
            stats.authenticationFailed(peer, failed.user());
        }
        if (step instanceof SaslExchange.Continue more) {
            return answer(BinaryResponse.of(request, BinaryStatus.AUTH_CONTINUE, 0, more.challenge()));
        }
        if (step instanceof SaslExchange.Done done) {
            user = done.user();
            failedAuthentications = 0;
            return answer(BinaryResponse.value(request, BinaryResponse.EMPTY,
                    done.data().length > 0 ? done.data() : AUTHENTICATED));
        }
        BinaryResponse failure;
        if (xerror) {
            // A client that reads extended errors learns why, as a Couchbase server tells it; the reasons never say
            // whether a user exists.
            ObjectNode body = JSON.createObjectNode();
            body.putObject("error").put("context", ((SaslExchange.Failed) step).why());
            failure = BinaryResponse.error(request.opcode(), request.opaque(), BinaryStatus.AUTH_ERROR,
                    body.toString());
        } else {
            failure = BinaryResponse.error(request.opcode(), request.opaque(), BinaryStatus.AUTH_ERROR);
        }
        return ++failedAuthentications < AUTHENTICATION_ATTEMPTS ? answer(failure)
                : Translation.answerAndClose(failure);
    }

    private Translation<BinaryResponse> selectBucket(BinaryRequest request) {
        String name = new String(request.key(), StandardCharsets.ISO_8859_1);
        BucketManifests.Bucket named = manifests.bucket(name);
        if (named == null) {
            // As a Couchbase server without the bucket: not found, which an SDK reports as BucketNotFoundException.
            stats.unknownBucket(peer, name);
            return error(request, BinaryStatus.KEY_NOT_FOUND);
        }
        bucket = named;
        bucketSelected = true;
        return answer(BinaryResponse.success(request));
    }

    private Translation<BinaryResponse> forward(Operation operation, BinaryRequest request) {
        return new Translation.Forward<>(operation, result -> Translation.answer(reply(request, result)));
    }

    private static Translation<BinaryResponse> answer(BinaryResponse reply) {
        return Translation.answer(reply);
    }

    private static Translation<BinaryResponse> error(BinaryRequest request, BinaryStatus status) {
        return answer(BinaryResponse.error(request.opcode(), request.opaque(), status));
    }
}
