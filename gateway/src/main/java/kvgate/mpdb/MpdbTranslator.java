package kvgate.mpdb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.OperationStream;
import kvgate.mpdb.MpdbDatagram.Request;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * MPDB requests to operations and their results to replies. PERSIST and GETPERSIST use the node's private bucket,
 * where a key is taken whole; INSERT, GET and GETBUCKET name collections, a key's collection being what comes
 * before its first dot ({@code global} when there is none). The pairs of one request go to the operation stream
 * together, so a GET of many keys reaches the backend as one batch. It holds no stream of its own: the datagram
 * handler gives it the one to send a request's operations to, as a connection gives a stream translator's work its
 * stream.
 */
public final class MpdbTranslator {
    private final MpdbNamespaces namespaces;
    private final int scanLimit;

    /** @param scanLimit the most pairs a GETBUCKET can answer (no more fit one reply datagram) */
    public MpdbTranslator(MpdbNamespaces namespaces, int scanLimit) {
        this.namespaces = namespaces;
        this.scanLimit = scanLimit;
    }

    /** A key as the operation stream sees it, and the name the reply gives it. */
    private record Place(Namespace namespace, byte[] key, String name) {
    }

    /**
     * Carries out a request, its operations sent to {@code stream}; the stage always completes normally, a failure
     * being an error reply.
     */
    public CompletionStage<MpdbReply> execute(Request request, OperationStream stream) {
        try {
            return switch (request.oper()) {
                case PERSIST -> store(stream, request, bucketPlaces(request, request.data().keySet()));
                case INSERT -> store(stream, request, collectionPlaces(new ArrayList<>(request.data().keySet())));
                case GETPERSIST -> read(stream, request, bucketPlaces(request, request.keys()));
                case GET -> read(stream, request, collectionPlaces(request.keys()));
                case GETBUCKET -> bucket(stream, request);
            };
        } catch (BadKey e) {
            return CompletableFuture.completedFuture(MpdbReply.error(request, e.getMessage()));
        }
    }

    private List<Place> bucketPlaces(Request request, Iterable<String> keys) throws BadKey {
        Namespace bucket = namespaces.bucket(request.nodeid());
        List<Place> places = new ArrayList<>();
        for (String key : keys) {
            places.add(new Place(bucket, bytes(key, key), key));
        }
        return places;
    }

    private List<Place> collectionPlaces(List<String> keys) throws BadKey {
        List<Place> places = new ArrayList<>();
        for (String full : keys) {
            int dot = full.indexOf('.');
            String collection = dot < 0 ? MpdbNamespaces.GLOBAL : full.substring(0, dot);
            String key = dot < 0 ? full : full.substring(dot + 1);
            try {
                places.add(new Place(namespaces.collection(collection), bytes(key, full), collection + "." + key));
            } catch (MpdbNamespaces.BadName e) {
                throw new BadKey("key \"" + full + "\" names " + e.getMessage());
            }
        }
        return places;
    }

    private static byte[] bytes(String key, String full) throws BadKey {
        if (key.isEmpty()) {
            throw new BadKey("key \"" + full + "\" is empty");
        }
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private CompletionStage<MpdbReply> store(OperationStream stream, Request request, List<Place> places) {
        List<MpdbValue> values = new ArrayList<>(request.data().values());
        List<Operation> stores = new ArrayList<>();
        for (int i = 0; i < places.size(); i++) {
            Place place = places.get(i);
            MpdbValue value = values.get(i);
            stores.add(new Operation.Store(place.namespace(), place.key(), StoreMode.SET, value.bytes(), value.flags(),
                    Item.NEVER, 0));
        }
        return stream.dispatchJoined(stores).thenApply(results -> {
            for (int i = 0; i < results.size(); i++) {
                if (!results.get(i).ok()) {
                    return MpdbReply.error(request, failure(places.get(i).name(), results.get(i)));
                }
            }
            return MpdbReply.ok(request, null);
        });
    }

    private CompletionStage<MpdbReply> read(OperationStream stream, Request request, List<Place> places) {
        List<Operation> gets = new ArrayList<>();
        for (Place place : places) {
            gets.add(new Operation.Get(place.namespace(), place.key()));
        }
        return stream.dispatchJoined(gets).thenApply(results -> {
            Map<String, MpdbValue> found = new LinkedHashMap<>();
            for (int i = 0; i < results.size(); i++) {
                Result result = results.get(i);
                if (result instanceof Result.Value value) {
                    found.put(places.get(i).name(), MpdbValue.of(value.item()));
                } else if (result.status() == Status.NOT_FOUND) {
                    found.put(places.get(i).name(), null);
                } else {
                    return MpdbReply.error(request, failure(places.get(i).name(), result));
                }
            }
            return MpdbReply.ok(request, found);
        });
    }

    private CompletionStage<MpdbReply> bucket(OperationStream stream, Request request) throws BadKey {
        String collection = request.collection();
        Namespace namespace;
        try {
            namespace = namespaces.collection(collection);
        } catch (MpdbNamespaces.BadName e) {
            throw new BadKey("\"collection\" is " + e.getMessage());
        }
        return stream.dispatch(new Operation.Scan(namespace, scanLimit)).thenApply(result -> {
            if (result instanceof Result.Entries entries) {
                if (entries.entries().isEmpty()) {
                    return MpdbReply.error(request, "Bucket does not exist");
                }
                Map<String, MpdbValue> pairs = new LinkedHashMap<>();
                for (Result.Entry entry : entries.entries()) {
                    pairs.put(collection + "." + new String(entry.key(), StandardCharsets.UTF_8),
                            MpdbValue.of(entry.item()));
                }
                return MpdbReply.ok(request, pairs);
            }
            if (result.status() == Status.TOO_LARGE) {
                return MpdbReply.error(request, "bucket \"" + collection + "\" holds more pairs than one reply can");
            }
            return MpdbReply.error(request, failure("bucket \"" + collection + "\"", result));
        });
    }

    private static String failure(String what, Result result) {
        String reason = result.status().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        if (result instanceof Result.Failure failure && !failure.message().isEmpty()) {
            reason += " (" + failure.message() + ")";
        }
        return what + ": " + reason;
    }

    /** A key or collection name that names no place. */
    private static final class BadKey extends Exception {
        BadKey(String message) {
            super(message, null, false, false);
        }
    }
}
