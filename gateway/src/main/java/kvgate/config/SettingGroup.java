package kvgate.config;

import java.util.List;
import kvgate.spi.Setting;

/**
 * Settings that belong together (a protocol's, a backend's), as the configuration reference, the shipped
 * configuration and {@code bin/gateway --help} show them.
 *
 * @param title what the group is, as a heading
 * @param about what a reader needs before its keys, in Markdown (empty: nothing)
 * @param settings its keys, in the order shown
 * @param example configuration lines showing the keys at work, shown after them (empty: none)
 */
public record SettingGroup(String title, String about, List<Setting> settings, List<String> example) {
    public SettingGroup {
        settings = List.copyOf(settings);
        example = List.copyOf(example);
    }

    public SettingGroup(String title, String about, List<Setting> settings) {
        this(title, about, settings, List.of());
    }
}
