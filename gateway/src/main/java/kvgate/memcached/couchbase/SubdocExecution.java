package kvgate.memcached.couchbase;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import kvgate.dispatch.OperationStream;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryRequest;
import kvgate.memcached.binary.BinaryResponse;
import kvgate.memcached.binary.BinaryStatus;
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
 * <p>The JSON work of a small document is done where its read completes, on the connection's network thread; a
 * large one's is handed to a pool of its own, so that a megabyte of JSON read into a tree never holds up the other
 * connections of that thread, and only as many trees are built at once as the pool has threads.
 *
 * @param stream where the reads and writes go
 * @param request the request, for the reply's opcode and opaque, and the CAS the client expects (0: any)
 * @param subdoc what to do
 * @param namespace the document's collection
 * @param key the document's key in it
 * @param expiresAt when a changed document expires (the request's expiry, within its collection's maxTTL)
 * @param preserveTtl whether a document already there keeps its expiry ({@code expiresAt} then applies only to one
 *     created here); the backend keeps it in the write, as the expiry a read tells is not always the item's
 * @param maxItemSize the largest document a change may make
 */
public record SubdocExecution(OperationStream stream, BinaryRequest request, SubdocRequest subdoc, Namespace namespace,
                       byte[] key, long expiresAt, boolean preserveTtl, int maxItemSize) {
    /** How often a change starts over after losing a race, as a Couchbase server retries, before it gives up. */
    static final int ATTEMPTS = 100;
    /** The largest document whose JSON work is done on the network thread (a few tens of microseconds). */
    static final int INLINE_BYTES = 16 * 1024;
    /**
     * Where larger documents are read and changed: one thread per core but one (at least one), daemon threads, as
     * the work is CPU alone and ends with the request.
     */
    private static final Executor LARGE_DOCUMENTS = Executors.newFixedThreadPool(
            Math.max(1, Runtime.getRuntime().availableProcessors() - 1), work -> {
                Thread thread = new Thread(work, "kvgate-subdoc");
                thread.setDaemon(true);
                return thread;
            });

    /** What a mutation's paths made of the document: the answer already, or the write to make. */
    private sealed interface Change permits Answered, Write {
    }

    /** The answer without a write: a path failed, or the document cannot take the change. */
    private record Answered(BinaryResponse reply) implements Change {
    }

    /** The operation that writes the changed document (or removes it), and the reply's body once it is written. */
    private record Write(Operation operation, byte[] body) implements Change {
    }

    /** The reply. The stage never completes exceptionally but for a fault (which the caller answers). */
    public CompletionStage<BinaryResponse> run() {
        return subdoc.mutation() ? mutate(1) : lookUp();
    }

    /** Runs JSON work on a document of {@code size} bytes: at once when it is small, else on the pool. */
    private static <T> CompletionStage<T> json(int size, Supplier<T> work) {
        return size <= INLINE_BYTES ? CompletableFuture.completedFuture(work.get())
                : CompletableFuture.supplyAsync(work, LARGE_DOCUMENTS);
    }

    private CompletionStage<BinaryResponse> lookUp() {
        return stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                return done(error(BinaryStatus.of(read.status())));
            }
            Item item = value.item();
            return json(item.value().length, () -> lookUpIn(item));
        });
    }

    /** Every path's lookup in the document {@code item} holds, all from that one version. */
    private BinaryResponse lookUpIn(Item item) {
        SubdocDocument document = new SubdocDocument(item);
        List<SubdocRequest.Spec> specs = subdoc.specs();
        if (!subdoc.multi()) {
            try {
                return reply(BinaryStatus.SUCCESS, item.cas(), document.lookUp(specs.get(0)));
            } catch (BinaryRefusal failure) {
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
            } catch (BinaryRefusal failure) {
                status = failure.status();
                allFound = false;
            }
            body.writeBytes(ByteBuffer.allocate(6).putShort((short) status.code()).putInt(found.length).array());
            body.writeBytes(found);
        }
        return reply(allFound ? BinaryStatus.SUCCESS : BinaryStatus.SUBDOC_MULTI_PATH_FAILURE, item.cas(),
                body.toByteArray());
    }

    /** One attempt at a change: read, change, write with the CAS read. */
    private CompletionStage<BinaryResponse> mutate(int attempt) {
        return stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (read instanceof Result.Value value) {
                Item item = value.item();
                if (subdoc.add() || request.cas() != 0 && request.cas() != item.cas()) {
                    return done(error(BinaryStatus.KEY_EXISTS));
                }
                if (item.cas() == 0) {
                    // A backend that keeps no CAS (memcached run with -C) cannot write only over what was read: a
                    // change would overwrite whatever another writer did meanwhile.
                    return done(error(BinaryStatus.NOT_SUPPORTED));
                }
                return json(item.value().length, () -> change(new SubdocDocument(item)))
                        .thenCompose(change -> write(change, attempt));
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
            int size = subdoc.specs().stream().mapToInt(spec -> spec.value().length).sum();
            return json(size, () -> change(SubdocDocument.created(first)))
                    .thenCompose(change -> write(change, attempt));
        });
    }

    /**
     * Applies every path to {@code document}: the write of the result, over the item it was read from with that
     * item's CAS or, where the document was missing, as a new one; or the answer, where a path failed.
     */
    private Change change(SubdocDocument document) {
        Item item = document.stored();
        boolean mkdir = subdoc.mkdoc() || subdoc.add();
        ByteArrayOutputStream results = new ByteArrayOutputStream();
        byte[] single = BinaryResponse.EMPTY;
        List<SubdocRequest.Spec> specs = subdoc.specs();
        for (int index = 0; index < specs.size(); index++) {
            SubdocRequest.Spec spec = specs.get(index);
            if (spec.command() == SubdocRequest.Command.DELETE_DOC) {
                // Alone in its request (as read): nothing else to apply.
                return new Write(new Operation.Delete(namespace, key, item.cas()), BinaryResponse.EMPTY);
            }
            byte[] returned;
            try {
                returned = document.mutate(spec, mkdir || spec.mkdir());
            } catch (BinaryRefusal failure) {
                if (!subdoc.multi()) {
                    return new Answered(error(failure.status()));
                }
                // A multi-path mutation fails as a whole, naming the first path that failed and why.
                byte[] why = ByteBuffer.allocate(3).put((byte) index).putShort((short) failure.status().code())
                        .array();
                return new Answered(reply(BinaryStatus.SUBDOC_MULTI_PATH_FAILURE, 0, why));
            }
            if (returned != null) {
                single = returned;
                results.writeBytes(ByteBuffer.allocate(7).put((byte) index).putShort((short) 0)
                        .putInt(returned.length).array());
                results.writeBytes(returned);
            }
        }
        byte[] bytes = document.bytes();
        if (bytes.length > maxItemSize) {
            return new Answered(error(BinaryStatus.TOO_LARGE));
        }
        Integer userFlags = subdoc.userFlags();
        Operation.Store store = item == null
                ? new Operation.Store(namespace, key, StoreMode.ADD, bytes, userFlags == null ? 0 : userFlags,
                        expiresAt, 0)
                : new Operation.Store(namespace, key, StoreMode.SET, bytes, userFlags == null ? item.flags()
                        : userFlags, expiresAt, item.cas(), preserveTtl);
        return new Write(store, subdoc.multi() ? results.toByteArray() : single);
    }

    /** Makes the write a change came to, or answers what it came to instead. */
    private CompletionStage<BinaryResponse> write(Change change, int attempt) {
        if (change instanceof Answered answered) {
            return done(answered.reply());
        }
        Write write = (Write) change;
        return stream.dispatch(write.operation()).thenCompose(result -> {
            if (!result.ok()) {
                return again(result, attempt);
            }
            // A store gives the document's new CAS; a removal leaves no document to have one.
            long cas = result instanceof Result.Stored stored ? stored.cas() : 0;
            return done(reply(BinaryStatus.SUCCESS, cas, write.body()));
        });
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
        return BinaryResponse.of(request, status, cas, body);
    }

    private BinaryResponse error(BinaryStatus status) {
        return BinaryResponse.error(request.opcode(), request.opaque(), status);
    }

    private static CompletionStage<BinaryResponse> done(BinaryResponse reply) {
        return CompletableFuture.completedFuture(reply);
    }
}
