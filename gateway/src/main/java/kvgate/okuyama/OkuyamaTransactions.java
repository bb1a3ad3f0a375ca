package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaReplies.done;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import kvgate.dispatch.OperationStream;
import kvgate.net.RefusalLog;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * okuyama's transactions and locks as the reference serves them with its TransactionMode on
 * ({@code okuyama.transactions}): startTransaction (37) hands out a transaction code, lockData (30) locks a key for
 * one code, releaseLockData (31) unlocks it, and every okuyama write of a key locked by another code waits until the
 * lock is released or expires. The reference keeps no state per transaction, and neither does the gateway: a lock
 * outlives its holder's connection and ends by releaseLockData or its locking time, as there.
 *
 * <p>A lock is an item in a namespace of the gateway's own beside the okuyama keyspace: its value is the holder's
 * transaction code and its expiry the lock's. Taking it is an add, so a lock taken through one gateway holds for
 * every gateway on the backend, and an expired lock is gone without a sweep.
 */
final class OkuyamaTransactions {
    /** How often lockData tries again while another code holds the lock: ten times a second, as the reference. */
    private static final long LOCK_RETRY_MILLIS = 100;
    /** How often a write looks again whether the lock that holds it up is gone. */
    private static final long WRITE_RETRY_MILLIS = 20;

    private final Namespace locks;
    private final boolean on;
    private final long waitMillis;
    private final Clock clock;
    /** Writes answered an error after waiting their longest for another transaction's lock. */
    private final RefusalLog lockWaits;

    /**
     * @param namespace the okuyama keyspace; its locks live in a namespace of the gateway's own beside it
     * @param on whether transaction mode is on; off, 37, 30 and 31 answer as the reference without it
     * @param waitMillis the longest lockData waits for a lock, and a write for another code's lock to go
     * @param lockWaits where a write given up after that wait is counted and logged
     */
    OkuyamaTransactions(Namespace namespace, boolean on, long waitMillis, Clock clock, RefusalLog lockWaits) {
        this.locks = namespaceOf(namespace);
        this.on = on;
        this.waitMillis = waitMillis;
        this.clock = clock;
        this.lockWaits = lockWaits;
    }

    /** Where the locks of the okuyama keyspace {@code namespace} live. */
    static Namespace namespaceOf(Namespace namespace) {
        return new Namespace("kvgate:okuyama-locks:" + namespace.name());
    }

    boolean on() {
        return on;
    }

    /** 37: a new transaction code, unique across gateways (the reference's is its clock and a hash). */
    Translation<String> start() {
        if (!on) {
            return Translation.answer("37,false,No Transaction Mode");
        }
        return Translation.answer("37,true," + System.nanoTime() + ThreadLocalRandom.current().nextInt(1 << 30));
    }

    /** 30: {@code 30,<key>,<code>,<locking seconds>,<waiting seconds>}. */
    Translation<String> lock(String[] fields) {
        byte[] key = key(field(fields, 1));
        String code = field(fields, 2).strip();
        long lockSeconds;
        long waitSeconds;
        try {
            lockSeconds = Long.parseLong(field(fields, 3).strip());
            waitSeconds = Long.parseLong(field(fields, 4).strip());
        } catch (NumberFormatException e) {
            return Translation.answer("30,false,");
        }
        if (!on) {
            return Translation.answer("30,false,");
        }
        // As the reference: no locking time is a lock without end; no waiting time is one attempt.
        long expiresAt = lockSeconds <= 0 ? Item.NEVER
                : clock.millis() + Math.min(lockSeconds, Long.MAX_VALUE / 2000) * 1000;
        long giveUpAt = clock.millis() + Math.min(Math.max(0, waitSeconds) * 1000, waitMillis);
        Operation.Store take = new Operation.Store(locks, key, StoreMode.ADD,
                code.getBytes(StandardCharsets.UTF_8), 0, expiresAt, 0);
        return new Translation.Await<>(stream -> lock(stream, take, code, giveUpAt));
    }

    private CompletionStage<Translation.Answer<String>> lock(OperationStream stream, Operation.Store take,
                                                             String code, long giveUpAt) {
        return stream.dispatch(take).thenCompose(result -> {
            if (result.ok()) {
                return done("30,true," + code);
            }
            if (result.status() != Status.EXISTS && result.status() != Status.NOT_STORED) {
                return done("30,error," + OkuyamaReplies.failure(result));
            }
            if (clock.millis() + LOCK_RETRY_MILLIS > giveUpAt) {
                return done("30,false,");
            }
            return later(LOCK_RETRY_MILLIS, () -> lock(stream, take, code, giveUpAt));
        });
    }

    /** 31: {@code 31,<key>,<code>}: unlocks a key its code holds; a key nobody holds is released already. */
    Translation<String> release(String[] fields) {
        byte[] key = key(field(fields, 1));
        String code = field(fields, 2).strip();
        if (!on) {
            return Translation.answer("31,false,");
        }
        return new Translation.Await<>(stream -> release(stream, key, code, 0));
    }

    private CompletionStage<Translation.Answer<String>> release(OperationStream stream, byte[] key, String code,
                                                                int attempt) {
        return stream.dispatch(new Operation.Get(locks, key)).thenCompose(read -> {
            if (read.status() == Status.NOT_FOUND) {
                return done("31,true," + code);
            }
            if (!(read instanceof Result.Value held)) {
                return done("31,error," + OkuyamaReplies.failure(read));
            }
            if (!holder(held).equals(code)) {
                return done("31,false,");
            }
            return stream.dispatch(new Operation.Delete(locks, key, held.item().cas())).thenCompose(gone ->
                    gone.ok() || gone.status() == Status.NOT_FOUND ? done("31,true," + code)
                            : attempt < OkuyamaTranslator.RETRIES ? release(stream, key, code, attempt + 1)
                            : done("31,error," + OkuyamaReplies.failure(gone)));
        });
    }

    /**
     * {@code write}, run once no other transaction code than {@code code} holds a lock on any of {@code keys}; while
     * one does, the write waits (the reference waits without end; the gateway up to {@code okuyama.lock_wait_s}, then
     * answers an error). With transaction mode off, {@code write} as it is.
     */
    Translation<String> guard(OkuyamaMethod method, List<byte[]> keys, String code, Translation<String> write) {
        if (!on || keys.isEmpty() || write instanceof Translation.Answer<String>) {
            return write;
        }
        List<Operation> reads = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            reads.add(new Operation.Get(locks, key));
        }
        long giveUpAt = clock.millis() + waitMillis;
        return new Translation.Await<>(stream -> guard(stream, method, reads, code.strip(), write, giveUpAt));
    }

    private CompletionStage<Translation.Answer<String>> guard(OperationStream stream, OkuyamaMethod method,
                                                              List<Operation> reads, String code,
                                                              Translation<String> write, long giveUpAt) {
        return stream.dispatchJoined(reads).thenCompose(held -> {
            boolean locked = false;
            for (Result lock : held) {
                if (lock instanceof Result.Value value && !holder(value).equals(code)) {
                    locked = true;
                } else if (!(lock instanceof Result.Value) && lock.status() != Status.NOT_FOUND) {
                    return done(method.replyCode() + ",error," + OkuyamaReplies.failure(lock));
                }
            }
            if (!locked) {
                return write.perform(stream);
            }
            if (clock.millis() + WRITE_RETRY_MILLIS > giveUpAt) {
                lockWaits.refused("a write of okuyama method " + method.code());
                return done(method.replyCode() + ",error,the key is locked by another transaction");
            }
            return later(WRITE_RETRY_MILLIS, () -> guard(stream, method, reads, code, write, giveUpAt));
        });
    }

    private static String holder(Result.Value lock) {
        return new String(lock.item().value(), StandardCharsets.UTF_8);
    }

    /** {@code next} run after {@code millis}, off the network threads (a waiting request holds no thread). */
    static <T> CompletionStage<T> later(long millis, Supplier<CompletionStage<T>> next) {
        Executor delayed = CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS);
        return CompletableFuture.supplyAsync(next, delayed).thenCompose(stage -> stage);
    }
}
