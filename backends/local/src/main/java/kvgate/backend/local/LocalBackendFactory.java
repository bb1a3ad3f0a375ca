package kvgate.backend.local;

import java.util.List;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Setting;
import org.pf4j.Extension;

/** Opens the local store: {@code backend = local}, settings {@code local.*}. */
@Extension
public final class LocalBackendFactory implements BackendFactory {

    static final String IN_MEMORY = ":memory:";

    @Override
    public String type() {
        return "local";
    }

    @Override
    public String description() {
        return "The embedded durable store: items in one file (H2 MVStore) under `local.path`, "
                + "or in memory only; see [The local store](local-store.md).";
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text("path", "data",
                        "the local store's directory (relative to the working directory), or `:memory:`"),
                Setting.integer("commit_interval_ms", 0, 0, 60_000,
                        "0: each write is committed to the store file before it is acknowledged; N: acknowledged at "
                        + "once, committed within N ms"),
                Setting.bool("fsync", false,
                        "also force each commit to the disk (survives power loss, not only a crash); with "
                        + "`commit_interval_ms` N, force the file every N ms"),
                Setting.integer("purge_interval_ms", 10_000, 100, 3_600_000,
                        "how often, in milliseconds, expired items are removed in the background; a pass reads the items of the parts "
                        + "of the table that hold items with an expiry (none, where no item expires), paced to a "
                        + "tenth of a core (a sleep after each 100 µs of work), and locks a part only where it saw an "
                        + "expired item there, so that it never holds up the network threads on a small machine"),
                Setting.integer("cache_mb", 64, 1, 1 << 20,
                        "page cache of the store file, in MiB"),
                Setting.size("memory_limit", "0", 0, 1L << 50,
                        "in memory (`:memory:`): what the items may take (`512m`, `4g`) before the least recently used "
                        + "are evicted, as memcached's `-m` (0: half of the JVM's largest heap, `-Xmx` in "
                        + "`KVGATE_JAVA_OPTS`)"));
    }

    @Override
    public Backend open(BackendContext context) {
        return LocalStore.open(context);
    }
}
