package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.encode;
import static kvgate.okuyama.OkuyamaReplies.done;
import static kvgate.okuyama.OkuyamaReplies.error;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.OperationStream;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * The expiry periods okuyama items were stored with, for getValueAndUpdateExpireTime (17), which extends an item by
 * the period its setValue gave, from now. The reference keeps that period in the stored value's own metadata; the
 * gateway keeps it beside the item, in a namespace of its own, as {@code <seconds>,<cas>} with the item's expiry: the
 * CAS names the item the period belongs to, so an item written since by anything else (a setValue without expiry, a
 * memcached client) is not extended, and the record goes when the item expires.
 */
final class OkuyamaPeriods {
    private final Namespace namespace;
    private final Namespace periods;
    private final Clock clock;

    OkuyamaPeriods(Namespace namespace, Clock clock) {
        this.namespace = namespace;
        this.periods = namespaceOf(namespace);
        this.clock = clock;
    }

    /** Where the periods of the okuyama keyspace {@code namespace} live. */
    static Namespace namespaceOf(Namespace namespace) {
        return new Namespace("kvgate:okuyama-periods:" + namespace.name());
    }

    /**
     * Stores {@code store} and, when it was given an expiry of {@code seconds}, the period beside the stored item;
     * the result is the store's (a period that cannot be kept only means 17 will not extend the item, as the
     * reference ignores a failed extension).
     */
    CompletionStage<Result> store(OperationStream stream, Operation.Store store, long seconds) {
        if (seconds <= 0) {
            return stream.dispatch(store);
        }
        return stream.dispatch(store).thenCompose(stored -> stored instanceof Result.Stored written
                ? remember(stream, store.key(), seconds, written.cas(), store.expiresAt()).thenApply(kept -> stored)
                : CompletableFuture.completedFuture(stored));
    }

    private CompletionStage<Result> remember(OperationStream stream, byte[] key, long seconds, long cas,
                                             long expiresAt) {
        byte[] record = (seconds + "," + cas).getBytes(StandardCharsets.US_ASCII);
        return stream.dispatch(new Operation.Store(periods, key, StoreMode.SET, record, 0, expiresAt, 0));
    }

    /**
     * 17: the value as read (an expired item is none), and the item stored again with its expiry moved to now plus
     * its period, when it has one and is still the item that period was given to.
     */
    Translation<String> getAndExtend(byte[] key) {
        OkuyamaMethod method = OkuyamaMethod.GET_VALUE_AND_UPDATE_EXPIRE_TIME;
        return new Translation.Await<>(stream -> stream.dispatchJoined(List.of(new Operation.Get(namespace, key),
                new Operation.Get(periods, key))).thenCompose(read -> {
                    if (!(read.get(0) instanceof Result.Value value)) {
                        return done(read.get(0).status() == Status.NOT_FOUND ? "17,false," : error(method, read.get(0)));
                    }
                    String reply = "17,true," + encode(value.item().value());
                    long[] period = read.get(1) instanceof Result.Value record ? parse(record.item()) : null;
                    if (period == null || period[1] != value.item().cas()) {
                        return done(reply);
                    }
                    long expiresAt = clock.millis() + period[0] * 1000;
                    Operation.Store extended = new Operation.Store(namespace, key, StoreMode.SET,
                            value.item().value(), value.item().flags(), expiresAt, value.item().cas());
                    // A write that loses a race with another is left lost, as the reference ignores it.
                    return store(stream, extended, period[0]).thenCompose(ignored -> done(reply));
                }));
    }

    /** {@code [seconds, cas]} of a period record, or null for one that does not read. */
    static long[] parse(Item record) {
        String text = new String(record.value(), StandardCharsets.US_ASCII);
        int comma = text.indexOf(',');
        try {
            long seconds = Long.parseLong(text.substring(0, Math.max(0, comma)));
            return seconds > 0 ? new long[] {seconds, Long.parseLong(text.substring(comma + 1))} : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
