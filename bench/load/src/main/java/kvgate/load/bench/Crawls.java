package kvgate.load.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How many LRU crawls memcached has started (its stat {@code lru_crawler_starts}), read every 200 ms while part 3's
 * runs go on in one generator process: each run's measured period is then matched with the crawls that started
 * about then. memcached's crawler starts by itself (about 67 s and 194 s after memcached, with the bench's load) and
 * walks every item on the servers' core, whichever server is being measured then.
 */
final class Crawls {
    /** One reading: when it began and ended (ms since the epoch) and the count, null when it could not be read. */
    record Reading(long began, long ended, Long count) {
    }

    private final int port;
    private final List<Reading> readings = new ArrayList<>();
    private final Thread poller;
    private volatile boolean stopped;

    private Crawls(int port) {
        this.port = port;
        this.poller = new Thread(this::poll, "bench-crawls");
        poller.setDaemon(true);
    }

    /** Starts reading memcached's count of crawls on {@code port}. */
    static Crawls poll(int port) {
        Crawls crawls = new Crawls(port);
        crawls.poller.start();
        return crawls;
    }

    private void poll() {
        while (!stopped) {
            long began = System.currentTimeMillis();
            Long count = read();
            synchronized (readings) {
                readings.add(new Reading(began, System.currentTimeMillis(), count));
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Long read() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            socket.getOutputStream().write("stats\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            Long count = null;
            for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
                if (line.startsWith("STAT lru_crawler_starts ")) {
                    count = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1).trim());
                }
            }
            return count;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    void stop() throws InterruptedException {
        stopped = true;
        poller.interrupt();
        poller.join(3000);
    }

    /**
     * How many crawls started about a period: the count of the first reading begun after its end less that of the
     * last reading ended before its start (a crawl up to a reading's interval from either end counts too: it leaves
     * a round out, never lets a crawl through); null when either is unknown.
     */
    Long during(long fromMillis, double seconds) {
        synchronized (readings) {
            return during(readings, fromMillis, seconds);
        }
    }

    static Long during(List<Reading> readings, long fromMillis, double seconds) {
        double to = fromMillis + seconds * 1000;
        Long before = null;
        Long after = null;
        for (Reading reading : readings) {
            if (reading.ended() <= fromMillis) {
                before = reading.count();
            }
            if (after == null && reading.began() >= to) {
                after = reading.count();
            }
        }
        return before == null || after == null ? null : after - before;
    }
}
