package kvgate.load.bench;

/**
 * One closed-loop kvgate-load run: part 2 (a target at a level), part 5 (a protocol of the gateway's) or part 6
 * (TLS).
 *
 * @param target the target's name (part 5: the protocol's)
 * @param round the round, from 1 (part 5: 1)
 */
public record LoadRow(String target, int connections, int depth, int round, LoadFigures figures) {
}
