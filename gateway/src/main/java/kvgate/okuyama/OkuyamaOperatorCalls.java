package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.encode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Namespace;
import kvgate.spi.OkuyamaVersions;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * What okuyama's operator tool ({@code UtilClient}) asks: truncate (61) on a MasterNode, and the full data export
 * (101) and key list (103) it asks a DataNode for. The gateway is both, so the tool may be pointed at its okuyama
 * port for all three.
 */
final class OkuyamaOperatorCalls {
    /** Ends an export and a key list, as a DataNode ends them, after an error too. */
    static final String END = "-1";

    private final Namespace namespace;
    private final List<Namespace> truncated;
    private final int exportLimit;

    /**
     * @param exportLimit the most items an export or key list gives; a keyspace holding more answers an error
     */
    OkuyamaOperatorCalls(Namespace namespace, int exportLimit) {
        this.namespace = namespace;
        // The keyspace and what the gateway keeps beside its items; locks are the transactions', as the reference's
        // TransactionManager keeps its locks through a truncate.
        this.truncated = List.of(namespace, OkuyamaLists.namespaceOf(namespace),
                OkuyamaPeriods.namespaceOf(namespace));
        this.exportLimit = exportLimit;
    }

    /**
     * 61: {@code 61,all} empties the keyspace: its items, tags, lists and kept periods. {@code 61,<isolation prefix>} (five
     * characters) empties the keys bearing that prefix, which on the gateway are none, as it runs no isolation mode;
     * it answers success, as the reference does for a prefix no key has.
     */
    Translation<String> truncate(String[] fields) {
        String what = fields.length == 2 ? fields[1].strip() : "";
        if (what.length() != 3 && what.length() != 5) {
            return Translation.answer("61,error,The mistake is found in the deletion specification");
        }
        if (!what.equals("all")) {
            return Translation.answer("61,true,");
        }
        List<Operation> flushes = new ArrayList<>();
        for (Namespace each : truncated) {
            flushes.add(new Operation.Flush(each, 0));
        }
        flushes.add(new Operation.DropTags(namespace));
        return new Translation.ForwardAll<>(flushes, results -> {
            for (int i = 0; i < results.size(); i++) {
                Result result = results.get(i);
                // A store that can flush only everything (memcached: the default namespace is its servers' whole
                // content) took the gateway's own namespaces and the tags with the keyspace.
                if (!result.ok() && (i == 0 || result.status() != Status.UNSUPPORTED)) {
                    return Translation.answer("61,error," + OkuyamaReplies.failure(result));
                }
            }
            return Translation.answer("61,true,");
        });
    }

    /**
     * 101: a line {@code +,<key>,<stored value>,<now>,;} per item, in the form of a DataNode's data file (a value is
     * {@code <value>!<version>}, with {@code ,0-<expiry ms>-<seconds>} before the {@code !} when it expires), then
     * {@code -1}. The gateway's version is the item's CAS; the seconds are the period the item was stored with where
     * the gateway kept it ({@link OkuyamaPeriods}), as a DataNode keeps it, else the seconds left.
     */
    Translation<String> export(long nowMillis) {
        Operation.Scan periods = new Operation.Scan(OkuyamaPeriods.namespaceOf(namespace), exportLimit, true);
        return listing("101", periods, (entries, kept) -> {
            Map<ByteBuffer, long[]> periodOf = new HashMap<>();
            if (kept instanceof Result.Entries records) {
                for (Result.Entry record : records.entries()) {
                    long[] period = OkuyamaPeriods.parse(record.item());
                    if (period != null) {
                        periodOf.put(ByteBuffer.wrap(record.key()), period);
                    }
                }
            }
            List<String> lines = new ArrayList<>(entries.size() + 1);
            for (Result.Entry entry : entries) {
                Item item = entry.item();
                StringBuilder line = new StringBuilder("+,").append(encode(entry.key())).append(',')
                        .append(encode(item.value()));
                if (item.expiresAt() != Item.NEVER) {
                    long[] period = periodOf.get(ByteBuffer.wrap(entry.key()));
                    long seconds = period != null && period[1] == item.cas() ? period[0]
                            : Math.max(1, ItemTransition.secondsLeft(item, nowMillis));
                    line.append(",0-").append(item.expiresAt()).append('-').append(seconds);
                }
                lines.add(line.append('!').append(OkuyamaVersions.version(item.cas())).append(',').append(nowMillis).append(",;").toString());
            }
            return lines;
        });
    }

    /** 103: each key, Base64 as okuyama keeps it, a line each, then {@code -1}. */
    Translation<String> keys() {
        return listing("103", null, (entries, unused) -> {
            List<String> lines = new ArrayList<>(entries.size() + 1);
            for (Result.Entry entry : entries) {
                lines.add(encode(entry.key()));
            }
            return lines;
        });
    }

    /**
     * The keyspace's items listed, and {@code beside} (null for nothing) with them, whose result {@code lines} gets
     * however it came out: what is kept beside the items only adds to what the lines say.
     */
    private Translation<String> listing(String code, Operation.Scan beside,
                                        BiFunction<List<Result.Entry>, Result, List<String>> lines) {
        // Exhaustive: an operator's export must find every item, also those other clients wrote into the store.
        Operation.Scan items = new Operation.Scan(namespace, exportLimit, true);
        return new Translation.ForwardAll<>(beside == null ? List.of(items) : List.of(items, beside), results -> {
            Result result = results.get(0);
            List<String> answer = new ArrayList<>();
            if (result instanceof Result.Entries entries) {
                answer.addAll(lines.apply(entries.entries(), results.size() > 1 ? results.get(1) : null));
            } else if (result.status() == Status.TOO_LARGE) {
                answer.add(code + ",error,the keyspace holds more than okuyama.export_limit (" + exportLimit
                        + ") items");
            } else {
                answer.add(code + ",error," + OkuyamaReplies.failure(result));
            }
            answer.add(END);
            return Translation.answers(answer);
        });
    }
}
