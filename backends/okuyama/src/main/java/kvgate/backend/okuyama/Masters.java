package kvgate.backend.okuyama;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import kvgate.spi.ServerHealth;

/**
 * The cluster's MasterNodes, each reached through one connection per event loop. Any master serves every request
 * (they share the DataNodes), so each loop prefers one master, spreading the loops over them, and a request its
 * master cannot take goes to the next master in the list, as okuyama's own client moves to another master when one
 * fails: at once while a master is ejected; a request that reached a master which then went away only if sending it
 * twice does no harm (a read), since a write may have taken effect.
 */
final class Masters {
    /** Per event loop, the connection to each master, in the order the masters are listed. */
    private final MasterConnection[][] connections;
    private final EventLoop[] loops;

    Masters(List<NodeAddress> masters, EventLoop[] loops, long timeoutMillis, int failureLimit, long retryMillis,
            int maxLine) {
        this.loops = loops;
        List<ServerHealth> health = new ArrayList<>();
        for (NodeAddress master : masters) {
            health.add(new ServerHealth("okuyama master " + master, failureLimit, retryMillis));
        }
        this.connections = new MasterConnection[loops.length][masters.size()];
        for (int l = 0; l < loops.length; l++) {
            for (int m = 0; m < masters.size(); m++) {
                connections[l][m] = new MasterConnection(masters.get(m), health.get(m), loops[l], timeoutMillis,
                        maxLine, this::failed);
            }
        }
    }

    /** The index of the event loop running the caller, or 0 for a thread that is not one of them. */
    int loopIndex() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i].inEventLoop()) {
                return i;
            }
        }
        return 0;
    }

    /**
     * Sends requests, in order, through the caller's loop's connection to the first master that is not ejected,
     * starting from the loop's own.
     */
    void send(List<MasterRequest> requests) {
        int loop = loopIndex();
        MasterConnection[] mine = connections[loop];
        int first = loop % mine.length;
        for (int i = 0; i < mine.length; i++) {
            MasterConnection connection = mine[(first + i) % mine.length];
            if (!connection.ejected()) {
                for (MasterRequest request : requests) {
                    request.tried = i;
                }
                connection.send(requests);
                return;
            }
        }
        // Every master is ejected: the loop's own fails the requests at once.
        mine[first].send(requests);
    }

    /** A request failed on a master's connection: the next master gets it, if it may go there. */
    private void failed(MasterRequest request, String why, boolean written) {
        request.tried++;
        int loop = loopIndex();
        MasterConnection[] mine = connections[loop];
        if ((written && !request.idempotent) || request.tried >= mine.length) {
            request.reply.completeExceptionally(new MasterUnavailable(why));
            return;
        }
        int first = loop % mine.length;
        mine[(first + request.tried) % mine.length].send(List.of(request));
    }

    void close() {
        for (MasterConnection[] loop : connections) {
            for (MasterConnection connection : loop) {
                connection.close();
            }
        }
    }
}
