package kvgate.load;

import io.netty.channel.EventLoop;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fixed-rate load for the clients of one event loop: batch k (one request, or {@code --batch} of them) is intended
 * to leave at {@code t0 + k * interval} and counts its requests' latencies from that intended time, so a server that
 * falls behind sees its queueing in the latencies instead of fewer requests (no coordinated omission). Woken at each
 * intended time.
 * Each batch goes to the next client in turn, in a write of its own, as independent clients would send them: when
 * the pacer wakes late (a pause of the tool's process or core) and finds many requests due, they spread over the
 * clients instead of queueing behind one client's pipeline, where each would wait for the one before it to be
 * answered and a short pause of the tool would show up as a long queue in the server's latencies. How late it woke
 * is reported ({@link LoadRun#late}), so that a long latency can be told from a pause of the tool.
 */
final class Pacer implements Runnable {
    private final LoadRun run;
    private final EventLoop loop;
    private final List<Client> clients;
    private final int batch;
    private final double intervalNanos;
    private long t0;
    private long batches;
    private int next;
    private volatile boolean stopped;

    /** {@code rate} requests a second, in batches of {@code batch}. */
    Pacer(LoadRun run, EventLoop loop, List<Client> clients, double rate, int batch) {
        this.run = run;
        this.loop = loop;
        this.clients = clients;
        this.batch = batch;
        this.intervalNanos = 1e9 * batch / rate;
    }

    void start(long t0) {
        this.t0 = t0;
        loop.execute(this);
    }

    void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        if (stopped) {
            return;
        }
        long now = System.nanoTime();
        long due = t0 + (long) (batches * intervalNanos);
        if (due <= now) {
            run.late(now - due); // the first batch due is the latest
        }
        while (due <= now) {
            Client client = nextAlive();
            if (client == null) {
                return; // every client of this loop is gone
            }
            for (int i = 0; i < batch; i++) {
                client.offer(due, now);
            }
            client.flushIfDirty();
            batches++;
            due = t0 + (long) (batches * intervalNanos);
        }
        loop.schedule(this, due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    private Client nextAlive() {
        for (int tried = 0; tried < clients.size(); tried++) {
            Client client = clients.get(next);
            next = (next + 1) % clients.size();
            if (client.takesOffers()) {
                return client;
            }
        }
        return null;
    }
}
