package kvgate.config;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kvgate.spi.Setting;

/**
 * The configuration reference, written from the settings' declarations: the tables of {@code docs/configuration.md},
 * the shipped {@code conf/gateway.conf} and the keys {@code bin/gateway --help} lists. Descriptions are Markdown; the
 * configuration file and the help get them as plain text. A test compares the files in the repository with what
 * this writes, so a setting is described once, where it is declared.
 */
public final class ConfigurationReference {
    /** Where the generated part of docs/configuration.md begins and ends. */
    public static final String TABLES_BEGIN = "<!-- The tables below are generated from the settings' declarations "
            + "(ConfigurationReference); edit those. -->";
    public static final String TABLES_END = "<!-- End of the generated tables. -->";

    private static final int WIDTH = 116;
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\(([^)]+)\\)");

    private ConfigurationReference() {
    }

    /** One table per group, each under its title, with what the shipped configuration sets where it differs. */
    public static String tables(List<SettingGroup> groups, Map<String, String> shipped) {
        StringBuilder out = new StringBuilder(TABLES_BEGIN).append("\n");
        for (SettingGroup group : groups) {
            out.append("\n## ").append(group.title()).append("\n\n");
            if (!group.about().isEmpty()) {
                out.append(group.about()).append("\n\n");
            }
            if (!group.example().isEmpty()) {
                out.append("```\n");
                group.example().forEach(line -> out.append(line).append('\n'));
                out.append("```\n\n");
            }
            out.append("| key | default | meaning |\n|---|---|---|\n");
            for (Setting setting : group.settings()) {
                String meaning = setting.description();
                String given = shipped.get(setting.key());
                if (given != null) {
                    meaning += " (the shipped configuration: " + code(given) + ")";
                }
                out.append("| `").append(setting.key()).append("` | ").append(code(shown(setting))).append(" | ")
                        .append(meaning.replace("|", "\\|")).append(" |\n");
            }
        }
        return out.append('\n').append(TABLES_END).append('\n').toString();
    }

    /** The shipped configuration file: every key with its description, at its shipped value. */
    public static String configurationFile(List<SettingGroup> groups, Map<String, String> shipped) {
        StringBuilder out = new StringBuilder();
        comment(out, "kvgate configuration, as shipped. Every key can also be given on the command line as "
                + "--key=value, which overrides this file; bin/gateway --help lists them, docs/configuration.md "
                + "describes them. Unknown keys and bad values stop the start with a message naming them. Values "
                + "are the defaults unless a comment says the shipped value differs. This file is generated from "
                + "the settings' declarations.");
        for (SettingGroup group : groups) {
            String heading = "# --- " + group.title() + " ";
            out.append('\n').append(heading).append("-".repeat(Math.max(3, WIDTH - heading.length())))
                    .append('\n');
            if (!group.about().isEmpty()) {
                comment(out, plain(group.about()));
            }
            for (String line : group.example()) {
                // The example's own comments stay comments; its settings are shown indented.
                if (line.startsWith("# ")) {
                    comment(out, line.substring(2));
                } else {
                    out.append("#   ").append(line).append('\n');
                }
            }
            if (!group.about().isEmpty() || !group.example().isEmpty()) {
                out.append('\n');
            }
            for (Setting setting : group.settings()) {
                String given = shipped.get(setting.key());
                comment(out, sentence(plain(setting.description())) + (given == null ? ""
                        : " Shipped as " + (given.isEmpty() ? "empty" : given) + "; the default is "
                        + (setting.defaultValue().isEmpty() ? "empty" : setting.defaultValue()) + "."));
                String value = given != null ? given
                        : setting.kind() == Setting.Kind.SECRET ? "" : setting.defaultValue();
                out.append(setting.key()).append(value.isEmpty() ? " =" : " = " + value).append('\n');
            }
        }
        return out.toString();
    }

    /** The groups' keys for {@code --help}: each key at its default, its description under it. */
    public static String help(List<SettingGroup> groups, int width) {
        StringBuilder out = new StringBuilder();
        for (SettingGroup group : groups) {
            out.append('\n').append(plain(group.title())).append(":\n");
            for (Setting setting : group.settings()) {
                out.append("  ").append(setting.key()).append(" = ")
                        .append(setting.kind() == Setting.Kind.SECRET ? "(secret)" : setting.defaultValue())
                        .append('\n');
                wrap(out, plain(setting.description()), "      ", width);
            }
        }
        return out.toString();
    }

    /**
     * A description as a sentence of its own, ended with a full stop; not capitalised, as it may begin with a name
     * written in lower case (okuyama, memcached).
     */
    private static String sentence(String text) {
        return text.isEmpty() || text.endsWith(".") ? text : text + ".";
    }

    /** A default as the table shows it. */
    private static String shown(Setting setting) {
        return setting.kind() == Setting.Kind.SECRET ? "" : setting.defaultValue();
    }

    private static String code(String value) {
        return value.isEmpty() ? "(empty)" : "`" + value + "`";
    }

    /**
     * Markdown as plain text: a link as its text followed by where it leads (a link within docs/configuration.md
     * names that page); code marks stay, as they tell a key or a value from the words around it.
     */
    private static String plain(String markdown) {
        Matcher links = LINK.matcher(markdown);
        StringBuilder text = new StringBuilder();
        while (links.find()) {
            String target = links.group(2);
            String where = target.startsWith("http") ? target
                    : "docs/" + (target.startsWith("#") ? "configuration.md" + target : target);
            String said = links.group(1);
            links.appendReplacement(text, Matcher.quoteReplacement(where.endsWith(said) ? where
                    : said + " (" + where + ")"));
        }
        links.appendTail(text);
        return text.toString();
    }

    /** {@code text} as comment lines, a paragraph (after a blank line in the text) starting a line of its own. */
    private static void comment(StringBuilder out, String text) {
        for (String paragraph : text.split("\n\n")) {
            wrap(out, paragraph.replace('\n', ' '), "# ", WIDTH);
        }
    }

    /** Appends {@code text} in lines of at most {@code width} characters, each after {@code indent}. */
    private static void wrap(StringBuilder out, String text, String indent, int width) {
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split(" ")) {
            if (word.isEmpty()) {
                continue;
            }
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                out.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            if (line.length() > indent.length()) {
                line.append(' ');
            }
            line.append(word);
        }
        out.append(line).append('\n');
    }
}
