package kvgate.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kvgate.collections.CollectionsSettings;
import kvgate.config.GatewaySettings;
import kvgate.counter.CounterProtocol;
import kvgate.counterstore.CounterStoreSettings;
import kvgate.memcached.MemcachedProtocol;
import kvgate.mpdb.MpdbProtocol;
import kvgate.net.ListenerTls;
import kvgate.net.Protocol;
import kvgate.okuyama.OkuyamaProtocol;
import kvgate.spi.Setting;

/**
 * The protocols the gateway can serve, and with them every key the gateway itself reads. Adding a protocol is writing
 * its package, with its {@link Protocol}, and listing it here.
 */
public final class Protocols {
    /** Every protocol, in the order they start. */
    public static final List<Protocol> ALL = List.of(new MemcachedProtocol(), new CounterProtocol(),
            new OkuyamaProtocol(), new MpdbProtocol());

    private Protocols() {
    }

    /**
     * Every key of the gateway's own: the gateway's, the collections', each protocol's and the counter store's
     * (backend plugins and route nodes declare theirs; {@link SettingGroups} arranges them all for the reference).
     */
    public static List<Setting> settings() {
        List<Setting> all = new ArrayList<>(GatewaySettings.ALL);
        all.addAll(ListenerTls.SETTINGS);
        all.addAll(CollectionsSettings.ALL);
        for (Protocol protocol : ALL) {
            for (Setting setting : protocol.settings()) {
                if (!setting.key().startsWith(protocol.name() + ".")) {
                    throw new IllegalStateException(protocol.name() + " declares " + setting.key()
                            + ", outside its keys " + protocol.name() + ".*");
                }
                all.add(setting);
            }
        }
        all.addAll(CounterStoreSettings.ALL);
        return all;
    }

    /** Other spellings accepted for the gateway's keys. */
    public static Map<String, String> aliases() {
        Map<String, String> aliases = new HashMap<>(CounterStoreSettings.ALIASES);
        for (Protocol protocol : ALL) {
            aliases.putAll(protocol.aliases());
        }
        return aliases;
    }
}
