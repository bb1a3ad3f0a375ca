package org.example.kvgate;

import java.util.List;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Setting;
import org.pf4j.Extension;

/**
 * The plugin's entry point. PF4J finds this class through {@code @Extension} (its annotation processor lists it in
 * the jar at compile time); the gateway asks every factory it finds for its type and settings, and opens the one
 * that {@code backend = example} selects.
 */
@Extension
public final class ExampleBackendFactory implements BackendFactory {

    /** The backend type: {@code backend = example}, and the prefix of this plugin's settings. */
    @Override
    public String type() {
        return "example";
    }

    /** What the configuration reference and {@code bin/gateway --help} say of it, above its settings. */
    @Override
    public String description() {
        return "An example to start a backend plugin from: items in a map in memory; see "
                + "[Writing a plugin](plugins.md).";
    }

    /**
     * The settings this backend reads, configured as {@code example.<key>}. The gateway checks every configured
     * value against these declarations (and refuses keys nobody declared) before {@link #open} runs, so
     * {@link ExampleStore} reads them without checking again.
     */
    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.integer(ExampleStore.MAX_ITEMS, 1_000_000, 0, Integer.MAX_VALUE,
                        "the most items held over all namespaces; a store of a new key beyond it fails with a "
                                + "temporary failure (0: no limit)"),
                Setting.integer(ExampleStore.PURGE_INTERVAL_MS, 10_000, 100, 3_600_000,
                        "how often expired items, and counters idle at 0, are removed in the background"));
    }

    /** Called once, before the gateway listens; may block. An exception stops start-up, naming this plugin. */
    @Override
    public Backend open(BackendContext context) {
        return new ExampleStore(context);
    }
}
