package kvgate.memcached;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.Dispatcher;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Runs one sub-document request on any backend: the document is read, looked up or changed here, and a change is
 * written back with the CAS it was read with, so that it lands only on the version it was made from. A change that
 * loses that race to another writer (another connection, another gateway) starts over from a fresh read, as a
 * Couchbase server does, unless the client named the CAS it expects: then the race is the client's answer.
 *
 * @param dispatcher where the reads and writes go
 * @param request the request, for the reply's opcode and opaque, and the CAS the client expects (0: any)
 * @param subdoc what to do
 * @param namespace the document's collection
 * @param key the document's key in it
 * @param expiresAt when a changed document expires (the request's expiry, within its collection's maxTTL)
 * @param maxItemSize the largest document a change may make
 */
record SubdocExecution(Dispatcher dispatcher, BinaryRequest request, SubdocRequest subdoc, Namespace namespace,
                       byte[] key, long expiresAt, int maxItemSize) {
    /** How often a change starts over after losing a race, as a Couchbase server retries, before it gives up. */
    static final int ATTEMPTS = 100;

    /** The reply. The stage never completes exceptionally. */
    CompletionStage<BinaryResponse> run() {
        return subdoc.mutation() ? mutate(1) : lookUp();
    }

    private CompletionStage<BinaryResponse> lookUp() {
        return dispatcher.dispatch(new Operation.Get(namespace, key)).thenApply(read -> {
            if (!(read instanceof Result.Value value)) {
                return error(BinaryStatus.of(read.status()));
            }
            Item item = value.item();
            SubdocDocument document = new SubdocDocument(item);
            List<SubdocRequest.Spec> specs = subdoc.specs();
            if (!subdoc.multi()) {
                try {
                    return reply(BinaryStatus.SUCCESS, item.cas(), document.lookUp(specs.get(0)));
                } catch (SubdocFailure failure) {
                    return error(failure.status());
                }
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean allFound = true;
            for (SubdocRequest.Spec spec : specs) {
                BinaryStatus status = BinaryStatus.SUCCESS;
                byte[] found = BinaryResponse.EMPTY;
                try {
                    found = document.lookUp(spec);
                } catch (SubdocFailure failure) {
                    status = failure.status();
                    allFound = false;
                }
                body.writeBytes(ByteBuffer.allocate(6).putShort((short) status.code()).putInt(found.length).array());
                body.writeBytes(found);
            }
            return reply(allFound ? BinaryStatus.SUCCESS : BinaryStatus.SUBDOC_MULTI_PATH_FAILURE, item.cas(),
                    body.toByteArray());
        });
    }

    /** One attempt at a change: read, change, write with the CAS read. */
    private CompletionStage<BinaryResponse> mutate(int attempt) {
        return dispatcher.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (read instanceof Result.Value value) {
                Item item = value.item();
                if (subdoc.add() || request.cas() != 0 && request.cas() != item.cas()) {
                    return done(error(BinaryStatus.KEY_EXISTS));
                }
                return change(new SubdocDocument(item), item, attempt);
            }
            if (read.status() != Status.NOT_FOUND) {
                return done(error(BinaryStatus.of(read.status())));
            }
            if (!(subdoc.mkdoc() || subdoc.add()) || request.cas() != 0) {
                return done(error(BinaryStatus.KEY_NOT_FOUND));
            }
            SubdocRequest.Spec first = subdoc.specs().get(0);
            if (first.command() == SubdocRequest.Command.DELETE_DOC) {
                return done(error(BinaryStatus.KEY_NOT_FOUND));
            }
            return change(SubdocDocument.created(first), null, attempt);
        });
    }

    /**
     * Applies every path to {@code document}, then writes it: over {@code item} with its CAS, or, where the document
     * was missing ({@code item} null), as a new one.
     */
    private CompletionStage<BinaryResponse> change(SubdocDocument document, Item item, int attempt) {
        boolean mkdir = subdoc.mkdoc() || subdoc.add();
        ByteArrayOutputStream results = new ByteArrayOutputStream();
        byte[] single = BinaryResponse.EMPTY;
        boolean delete = false;
        List<SubdocRequest.Spec> specs = subdoc.specs();
        for (int index = 0; index < specs.size(); index++) {
            SubdocRequest.Spec spec = specs.get(index);
            if (spec.command() == SubdocRequest.Command.DELETE_DOC) {
                delete = true;
                continue;
            }
            byte[] returned;
            try {
                returned = document.mutate(spec, mkdir || spec.mkdir());
            } catch (SubdocFailure failure) {
                if (!subdoc.multi()) {
                    return done(error(failure.status()));
                }
                // A multi-path mutation fails as a whole, naming the first path that failed and why.
                byte[] why = ByteBuffer.allocate(3).put((byte) index).putShort((short) failure.status().code())
                        .array();
                return done(reply(BinaryStatus.SUBDOC_MULTI_PATH_FAILURE, 0, why));
            }
            if (returned != null) {
                single = returned;
                results.writeBytes(ByteBuffer.allocate(7).put((byte) index).putShort((short) 0)
                        .putInt(returned.length).array());
                results.writeBytes(returned);
            }
        }
        byte[] body = subdoc.multi() ? results.toByteArray() : single;
        if (delete) {
            return dispatcher.dispatch(new Operation.Delete(namespace, key, item.cas())).thenCompose(removed ->
                    removed.ok() ? done(reply(BinaryStatus.SUCCESS, 0, BinaryResponse.EMPTY))
                            : again(removed, attempt));
        }
        byte[] bytes = document.bytes();
        if (bytes.length > maxItemSize) {
            return done(error(BinaryStatus.TOO_LARGE));
        }
        Integer userFlags = subdoc.userFlags();
        Operation.Store store = item == null
                ? new Operation.Store(namespace, key, StoreMode.ADD, bytes, userFlags == null ? 0 : userFlags,
                        expiresAt, 0)
                : new Operation.Store(namespace, key, StoreMode.SET, bytes, userFlags == null ? item.flags()
                        : userFlags, expiresAt, item.cas());
        return dispatcher.dispatch(store).thenCompose(written -> written instanceof Result.Stored stored
                ? done(reply(BinaryStatus.SUCCESS, stored.cas(), body)) : again(written, attempt));
    }

    /**
     * A write that failed: where the document changed or appeared or went since it was read, a fresh attempt (but
     * a client that named a CAS learns that it no longer holds); anything else is the answer.
     */
    private CompletionStage<BinaryResponse> again(Result failed, int attempt) {
        Status status = failed.status();
        boolean race = status == Status.EXISTS || status == Status.NOT_FOUND || status == Status.NOT_STORED;
        if (!race) {
            return done(error(BinaryStatus.of(status)));
        }
        if (request.cas() != 0 || subdoc.add()) {
            return done(error(status == Status.NOT_FOUND ? BinaryStatus.KEY_NOT_FOUND : BinaryStatus.KEY_EXISTS));
        }
        if (attempt >= ATTEMPTS) {
            return done(error(BinaryStatus.TEMPORARY_FAILURE));
        }
        return mutate(attempt + 1);
    }

    private BinaryResponse reply(BinaryStatus status, long cas, byte[] body) {
        return new BinaryResponse(request.opcode(), status.code(), request.opaque(), cas, BinaryResponse.EMPTY,
                BinaryResponse.EMPTY, body);
    }

    private BinaryResponse error(BinaryStatus status) {
        return BinaryResponse.error(request.opcode(), request.opaque(), status);
    }

    private static CompletionStage<BinaryResponse> done(BinaryResponse reply) {
        return CompletableFuture.completedFuture(reply);
    }
}
