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
    public List<Setting> settings() {
        return List.of(
                Setting.text("path", "data",
                        "directory of the store file (relative to the working directory), or :memory: to keep "
                                + "everything in memory only"),
                Setting.integer("commit_interval_ms", 0, 0, 60_000,
                        "0: every write is committed to the file before it is acknowledged (group commit); "
                                + "N: writes are acknowledged at once and committed at most N ms later"),
                Setting.bool("fsync", false,
                        "also force each commit to the disk (survives power loss, not only a process crash); with "
                                + "commit_interval_ms N, force the file every N ms"),
                Setting.integer("purge_interval_ms", 10_000, 100, 3_600_000,
                        "how often expired items are removed in the background"),
                Setting.integer("cache_mb", 64, 1, 1 << 20,
                        "MVStore page cache for a file store, in MiB"),
                Setting.size("memory_limit", "0", 0, 1L << 50,
                        "in memory: what the items may take before the least recently used are evicted (0: half "
                                + "of the JVM's largest heap)"));
    }

    @Override
    public Backend open(BackendContext context) {
        return LocalStore.open(context);
    }
}
