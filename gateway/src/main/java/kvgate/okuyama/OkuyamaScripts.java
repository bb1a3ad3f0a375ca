package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.decode;
import static kvgate.okuyama.OkuyamaFields.encode;
import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaReplies.done;
import static kvgate.okuyama.OkuyamaReplies.error;

import java.nio.charset.StandardCharsets;
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
 * getValueScript (8) and getValueScriptForUpdate (9): the item read, the client's JavaScript run on it in the
 * {@link ValueScripts} sandbox, and its result answered or stored, as the reference's replies say.
 */
final class OkuyamaScripts {
    private final Namespace namespace;
    private final int maxValue;
    /** Where the scripts run; null when they are off ({@code okuyama.scripts}). */
    private final ValueScripts sandbox;

    OkuyamaScripts(Namespace namespace, int maxValue, ValueScripts sandbox) {
        this.namespace = namespace;
        this.maxValue = maxValue;
        this.sandbox = sandbox;
    }

    Translation<String> translate(OkuyamaMethod method, String[] fields) {
        byte[] key = key(field(fields, 1));
        String scriptField = field(fields, 2).strip();
        String script = scriptField.equals(OkuyamaFields.BLANK) ? ""
                : new String(decode(scriptField), StandardCharsets.UTF_8);
        if (sandbox == null) {
            return Translation.answer(method.code() + ",error,value scripts are off (okuyama.scripts)");
        }
        return new Translation.Await<>(stream -> script(stream, method, key, script, 0));
    }

    /**
     * Reads the item, runs the script on it and answers what the script returns; execRet "2" also stores it, with
     * the CAS of the item the script saw, and runs the script again on the new item if another write came between
     * (the reference writes without a check, on the one replica that ran it).
     */
    private CompletionStage<Translation.Answer<String>> script(OperationStream stream, OkuyamaMethod method,
                                                               byte[] key, String script, int attempt) {
        String code = Integer.toString(method.code());
        return stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                return done(read.status() == Status.NOT_FOUND ? code + ",false," : error(method, read));
            }
            Item item = value.item();
            if (script.isBlank()) {
                return done(code + ",true," + encode(item.value()));
            }
            return sandbox.run(script, new String(key, StandardCharsets.UTF_8),
                    new String(item.value(), StandardCharsets.UTF_8)).thenCompose(outcome -> {
                if (outcome instanceof ValueScripts.Failed failed) {
                    // The reply's fields are split at commas: the reason is cut at its first, as the reference's.
                    String why = failed.why() == null ? "null" : failed.why();
                    return done(code + ",error," + (why.indexOf(',') < 0 ? why : why.substring(0, why.indexOf(','))));
                }
                ValueScripts.Ran ran = (ValueScripts.Ran) outcome;
                byte[] returned = ran.value() == null ? new byte[0] : ran.value().getBytes(StandardCharsets.UTF_8);
                String reply = code + ",true," + encode(returned);
                if ("1".equals(ran.execRet())) {
                    return done(reply);
                }
                if (!"2".equals(ran.execRet())) {
                    return done(code + ",false,");
                }
                if (returned.length > maxValue) {
                    return done(code + ",false,Value Length Error");
                }
                return stream.dispatch(new Operation.Store(namespace, key, StoreMode.SET, returned, item.flags(),
                        item.expiresAt(), item.cas())).thenCompose(stored -> {
                    if (stored.ok()) {
                        return done(reply);
                    }
                    if ((stored.status() == Status.EXISTS || stored.status() == Status.NOT_FOUND) && attempt < OkuyamaTranslator.RETRIES) {
                        return script(stream, method, key, script, attempt + 1);
                    }
                    return done(error(method, stored));
                });
            });
        });
    }
}
