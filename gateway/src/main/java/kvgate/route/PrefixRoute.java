package kvgate.route;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.Outcomes;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;
import kvgate.spi.Status;

/**
 * Selects a child by the longest prefix of the key (mcrouter's prefix selector). Key operations go to the child of
 * their key; tags and search go to the default child, which therefore holds a namespace's tag lists and search
 * index. A flush and a scan go to every child, as every one may hold keys of the namespace: a scan takes each key
 * from the child its prefix selects, so a copy left in another child (from before a reload moved the prefix) is not
 * listed.
 */
final class PrefixRoute implements Route {
    static final String TYPE = "prefix";
    static final String PREFIXES = "prefixes";
    static final String DEFAULT = "default";

    static final NodeType NODE = new NodeType(TYPE, List.of(
            Setting.text(PREFIXES, "", "comma-separated prefix=route pairs; a key goes to the route of its longest "
                    + "matching prefix (prefixes are UTF-8 and may not contain commas)"),
            Setting.text(DEFAULT, "", "the route of keys no prefix matches, and of scans, tags and search "
                    + "(required)")),
            PrefixRoute::build);

    private static Route build(RouteContext context) {
        Route fallback = context.route(context.required(DEFAULT));
        List<Choice> choices = new ArrayList<>();
        Choices.parse(PREFIXES, context.settings().text(PREFIXES)).forEach((prefix, child) ->
                choices.add(new Choice(prefix.getBytes(StandardCharsets.UTF_8), context.route(child))));
        choices.sort(Comparator.comparingInt((Choice choice) -> choice.prefix().length).reversed());
        return new PrefixRoute(context.name(), choices, fallback);
    }

    private record Choice(byte[] prefix, Route route) {
    }

    private final String name;
    /** Longest prefix first, so the first match is the longest. */
    private final Choice[] choices;
    private final Route fallback;
    private final List<Route> everyChild;

    private PrefixRoute(String name, List<Choice> choices, Route fallback) {
        this.name = name;
        this.choices = choices.toArray(new Choice[0]);
        this.fallback = fallback;
        Set<Route> children = new LinkedHashSet<>();
        choices.forEach(choice -> children.add(choice.route()));
        children.add(fallback);
        this.everyChild = List.copyOf(children);
    }

    @Override
    public Route select(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            Choice choice = matching(keyed.key());
            return choice == null ? fallback : choice.route();
        }
        return toEveryChild(operation) ? this : fallback;
    }

    private boolean toEveryChild(Operation operation) {
        return (operation instanceof Operation.Flush || operation instanceof Operation.Scan) && everyChild.size() > 1;
    }

    /** The choice of the longest prefix of {@code key}, or null. */
    private Choice matching(byte[] key) {
        for (Choice choice : choices) {
            byte[] prefix = choice.prefix();
            if (key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
                return choice;
            }
        }
        return null;
    }

    /** Only a flush or a scan reaches a prefix node itself: every other operation is handed on by {@link #select}. */
    @Override
    public CompletionStage<Result> execute(Operation operation) {
        Route selected = select(operation);
        if (selected != this) {
            return selected.execute(operation);
        }
        List<CompletableFuture<Result>> answers = new ArrayList<>(everyChild.size());
        for (Route child : everyChild) {
            answers.add(Outcomes.guarded(child.execute(operation)).toCompletableFuture());
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).handle((ignored, error) -> {
            for (CompletableFuture<Result> answer : answers) {
                Result result = answer.join();
                if (!result.ok()) {
                    return result;
                }
            }
            return operation instanceof Operation.Scan scan ? merged(scan, answers) : Result.DONE;
        });
    }

    /** The children's scans as one: each key from the child its prefix selects, within the scan's limit. */
    private Result merged(Operation.Scan scan, List<CompletableFuture<Result>> answers) {
        List<Result.Entry> entries = new ArrayList<>();
        for (int i = 0; i < everyChild.size(); i++) {
            Route child = everyChild.get(i);
            for (Result.Entry entry : ((Result.Entries) answers.get(i).join()).entries()) {
                Choice choice = matching(entry.key());
                if ((choice == null ? fallback : choice.route()) == child) {
                    entries.add(entry);
                }
            }
        }
        if (entries.size() > scan.limit()) {
            return Result.failure(Status.TOO_LARGE, "the namespace holds more than " + scan.limit() + " items");
        }
        return new Result.Entries(entries);
    }

    @Override
    public Step explain(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            Choice choice = matching(keyed.key());
            return choice == null ? new Step("no key prefix matches: the default", List.of(fallback))
                    : new Step("key prefix '" + new String(choice.prefix(), StandardCharsets.UTF_8) + "' matches",
                            List.of(choice.route()));
        }
        if (toEveryChild(operation)) {
            return new Step(operation instanceof Operation.Scan ? "a scan goes to every child, each key taken from "
                    + "the child its prefix selects" : "a flush goes to every child", everyChild);
        }
        return new Step("an operation on the whole namespace goes to the default", List.of(fallback));
    }

    @Override
    public String toString() {
        return "route " + name + " (" + TYPE + ")";
    }
}
