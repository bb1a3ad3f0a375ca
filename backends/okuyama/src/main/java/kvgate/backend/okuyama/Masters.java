package kvgate.backend.okuyama;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import kvgate.spi.ServerHealth;

/**
 * The cluster's MasterNodes, each reached through a few connections per event loop (each carries one request at a
 * time, as okuyama's own pooled clients do). Any master serves every request (they share the DataNodes), so each
 * loop prefers one master, spreading the loops over them, and a request its master cannot take goes to the next
 * master in the list, as okuyama's own client moves to another master when one fails: at once while a master is
 * ejected; a request that reached a master which then went away only if sending it twice does no harm (a read),
 * since a write may have taken effect. Among a master's connections a request takes the least busy.
 */
final class Masters {
    /** Per event loop, per master in the order listed, its connections. */
    private final MasterConnection[][][] connections;
    private final EventLoop[] loops;

    Masters(List<NodeAddress> masters, EventLoop[] loops, int perLoop, long timeoutMillis, int failureLimit,
            long retryMillis, int maxLine) {
        this.loops = loops;
        List<ServerHealth> health = new ArrayList<>();
        for (NodeAddress master : masters) {
            health.add(new ServerHealth("okuyama master " + master, failureLimit, retryMillis));
        }
        this.connections = new MasterConnection[loops.length][masters.size()][perLoop];
        for (int l = 0; l < loops.length; l++) {
            for (int m = 0; m < masters.size(); m++) {
                for (int c = 0; c < perLoop; c++) {
                    connections[l][m][c] = new MasterConnection(masters.get(m), health.get(m), loops[l],
                            timeoutMillis, maxLine, this::failed);
                }
            }
        }
    }

    /** The index of the event loop running the caller, or -1 for a thread that is not one of them. */
    private int loopIndex() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i].inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Sends requests, in order and on one connection, through the caller's loop to the first master that is not
     * ejected, starting from the loop's own.
     */
    void send(List<MasterRequest> requests) {
        int loop = loopIndex();
        MasterConnection[][] mine = connections[Math.max(loop, 0)];
        int first = Math.max(loop, 0) % mine.length;
        for (int i = 0; i < mine.length; i++) {
            int master = (first + i) % mine.length;
            if (!mine[master][0].ejected()) {
                for (MasterRequest request : requests) {
                    request.tried = i;
                }
                leastBusy(mine[master], loop >= 0).send(requests);
                return;
            }
        }
        // Every master is ejected: the loop's own fails the requests at once.
        mine[first][0].send(requests);
    }

    /** The connection with the fewest requests on it; the first, off the loop, where their counts cannot be read. */
    private static MasterConnection leastBusy(MasterConnection[] connections, boolean onLoop) {
        MasterConnection best = connections[0];
        if (onLoop) {
            for (MasterConnection connection : connections) {
                if (connection.load() < best.load()) {
                    best = connection;
                }
            }
        }
        return best;
    }

    /** A request failed on a master's connection (on its loop): the next master gets it, if it may go there. */
    private void failed(MasterRequest request, String why, boolean written) {
        request.tried++;
        int loop = Math.max(loopIndex(), 0);
        MasterConnection[][] mine = connections[loop];
        if ((written && !request.idempotent) || request.tried >= mine.length) {
            request.reply.completeExceptionally(new MasterUnavailable(why));
            return;
        }
        int first = loop % mine.length;
        leastBusy(mine[(first + request.tried) % mine.length], true).send(List.of(request));
    }

    void close() {
        for (MasterConnection[][] loop : connections) {
            for (MasterConnection[] master : loop) {
                for (MasterConnection connection : master) {
                    connection.close();
                }
            }
        }
    }
}
