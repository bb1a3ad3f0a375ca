package kvgate.okuyama;

import java.lang.management.ManagementFactory;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.net.RefusalLog;
import org.mozilla.javascript.Context;
import org.mozilla.javascript.ContextFactory;
import org.mozilla.javascript.RegExpProxy;
import org.mozilla.javascript.RhinoException;
import org.mozilla.javascript.Scriptable;
import org.mozilla.javascript.ScriptRuntime;
import org.mozilla.javascript.ScriptableObject;
import org.mozilla.javascript.Undefined;
import org.mozilla.javascript.regexp.RegExpImpl;

/**
 * The JavaScript of okuyama's getValueScript and getValueScriptForUpdate (8 and 9), run on the value in a sandbox:
 * Rhino, interpreted, with the safe standard objects only (no Java classes, no I/O, no host objects), no regular
 * expressions (a pattern that backtracks without end could not be stopped), a time limit and a bound on what a
 * script may allocate, each checked every few thousand instructions, on threads of their own with a bounded queue
 * so scripts never hold a network thread and a flood of them is refused rather than queued without end.
 *
 * <p>As in the reference, the script sees {@code dataKey} and {@code dataValue} (UTF-8 text) and sets
 * {@code execRet} and {@code retValue}; each call gets a fresh scope (the reference reuses its engine per thread,
 * so variables a script leaves may be seen by a later one: the gateway does not do that).
 */
final class ValueScripts implements AutoCloseable {
    /** What a script asked for: {@code execRet} and {@code retValue}, or why it failed. */
    sealed interface Outcome {
    }

    /** The script ran: {@code execRet} "1" returns {@code value}, "2" also stores it, anything else is no data. */
    record Ran(String execRet, String value) implements Outcome {
    }

    /** The script failed (an error it threw, a syntax error, a limit), said in one line. */
    record Failed(String why) implements Outcome {
    }

    private static final int INSTRUCTIONS_BETWEEN_CHECKS = 10_000;
    private static final int STACK_DEPTH = 1_000;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final long timeoutNanos;
    private final long maxAllocated;
    private final ThreadPoolExecutor executor;
    /** Scripts refused for a full queue, and scripts stopped at a limit: counted and logged, rate-limited. */
    private final RefusalLog queueFull;
    private final RefusalLog limitReached;
    private final SandboxFactory factory = new SandboxFactory();
    private final ScriptableObject shared;

    /**
     * @param threads how many scripts run at once
     * @param queue how many more may wait; past that a script is refused
     * @param timeoutMillis the longest one script runs
     * @param maxAllocated the most bytes one script may allocate
     * @param queueFull where a script refused for a full queue is counted and logged
     * @param limitReached where a script stopped at its time or allocation limit is counted and logged
     */
    ValueScripts(int threads, int queue, long timeoutMillis, long maxAllocated, RefusalLog queueFull,
                 RefusalLog limitReached) {
        this.queueFull = queueFull;
        this.limitReached = limitReached;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.maxAllocated = maxAllocated;
        AtomicInteger count = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), work -> {
                    Thread thread = new Thread(work, "kvgate-okuyama-script-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true); // no thread kept where no script runs
        try (Context cx = factory.enterContext()) {
            // Sealed: a script cannot change the standard objects other scripts see.
            this.shared = cx.initSafeStandardObjects(null, true);
        }
    }

    /** Runs {@code script} on the item; never completes exceptionally. */
    CompletionStage<Outcome> run(String script, String key, String value) {
        try {
            return CompletableFuture.supplyAsync(() -> evaluate(script, key, value), executor)
                    .exceptionally(error -> new Failed("the script failed: " + error.getCause()));
        } catch (RejectedExecutionException e) {
            queueFull.refused("getValueScript");
            return CompletableFuture.completedFuture(new Failed("too many value scripts waiting to run; try again"));
        }
    }

    private Outcome evaluate(String script, String key, String value) {
        try (Context cx = factory.enterContext()) {
            cx.putThreadLocal(Limits.class, new Limits(System.nanoTime() + timeoutNanos,
                    THREADS.getCurrentThreadAllocatedBytes() + maxAllocated));
            Scriptable scope = cx.newObject(shared);
            scope.setPrototype(shared);
            scope.setParentScope(null);
            scope.put("dataKey", scope, key);
            scope.put("dataValue", scope, value);
            cx.evaluateString(scope, script, "script", 1, null);
            Object execRet = scope.get("execRet", scope);
            Object retValue = scope.get("retValue", scope);
            return new Ran(text(execRet), text(retValue));
        } catch (RhinoException e) {
            return new Failed(e.details());
        } catch (LimitReached e) {
            limitReached.refused("getValueScript");
            return new Failed(e.getMessage());
        } catch (StackOverflowError e) {
            return new Failed("the script recursed too deep");
        } catch (RuntimeException e) {
            return new Failed(String.valueOf(e.getMessage()));
        }
    }

    /** A variable the script set, as text; null when it set none. */
    private static String text(Object value) {
        if (value == Scriptable.NOT_FOUND || value == null || value instanceof Undefined) {
            return null;
        }
        return value instanceof CharSequence chars ? chars.toString() : Context.toString(value);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** When the running script must stop. */
    private record Limits(long deadlineNanos, long allocatedLimit) {
    }

    /** Thrown from the instruction observer; an {@link Error}, so a script's own catch cannot swallow it. */
    private static final class LimitReached extends Error {
        LimitReached(String message) {
            super(message, null, false, false);
        }
    }

    private final class SandboxFactory extends ContextFactory {
        @Override
        protected Context makeContext() {
            Context cx = super.makeContext();
            cx.setInterpretedMode(true); // the instruction observer works in interpreted mode only
            cx.setInstructionObserverThreshold(INSTRUCTIONS_BETWEEN_CHECKS);
            cx.setMaximumInterpreterStackDepth(STACK_DEPTH);
            cx.setClassShutter(className -> false); // no Java class is visible
            ScriptRuntime.setRegExpProxy(cx, new NoPatterns(new RegExpImpl()));
            return cx;
        }

        @Override
        protected void observeInstructionCount(Context cx, int instructionCount) {
            Limits limits = (Limits) cx.getThreadLocal(Limits.class);
            if (limits == null) {
                return;
            }
            if (System.nanoTime() > limits.deadlineNanos()) {
                throw new LimitReached("the script ran past okuyama.script_timeout_ms");
            }
            if (THREADS.getCurrentThreadAllocatedBytes() > limits.allocatedLimit()) {
                throw new LimitReached("the script allocated more than okuyama.script_memory");
            }
        }
    }

    /**
     * Regular expressions refused: a pattern is matched in one step that the instruction observer cannot stop.
     * Replacing and splitting by a string (which no pattern can then be) still work.
     */
    private record NoPatterns(RegExpProxy standard) implements RegExpProxy {
        private static RuntimeException refused() {
            return Context.reportRuntimeError("regular expressions are not available to value scripts");
        }

        @Override
        public void register(ScriptableObject scope, boolean sealed) {
            // No RegExp constructor: it compiles its patterns itself, past compileRegExp.
        }

        @Override
        public boolean isRegExp(Scriptable object) {
            return false;
        }

        @Override
        public Object compileRegExp(Context cx, String source, String flags) {
            throw refused();
        }

        @Override
        public Scriptable wrapRegExp(Context cx, Scriptable scope, Object compiled) {
            throw refused();
        }

        @Override
        public Object action(Context cx, Scriptable scope, Scriptable thisObj, Object[] args, int actionType) {
            // match and search read a string as a pattern; replace reads it literally.
            if (actionType == RA_MATCH || actionType == RA_SEARCH) {
                throw refused();
            }
            return standard.action(cx, scope, thisObj, args, actionType);
        }

        @Override
        public int find_split(Context cx, Scriptable scope, String target, String separator, Scriptable re,
                              int[] ip, int[] matchlen, boolean[] matched, String[][] parens) {
            throw refused();
        }

        @Override
        public Object js_split(Context cx, Scriptable scope, String target, Object[] args) {
            return standard.js_split(cx, scope, target, args);
        }
    }
}
