package kvgate.backend.okuyama;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Consumer;
import kvgate.spi.Item;
import kvgate.spi.OkuyamaVersions;

/**
 * Reads everything one okuyama DataNode holds, with its data export (request 101, what okuyama's UtilClient
 * {@code dataexport} asks for): one line {@code +,<key>,<stored value>,<time>,;} per record, then {@code -1}. A
 * MasterNode cannot list keys; its DataNodes can, each its share. Blocking: run it off the network threads.
 *
 * <p>The export is not the key list (103), which leaves out every key behind an isolation prefix and carries no
 * value, so no expiry. While it runs the client must send nothing: the DataNode stops early, without saying so, if it
 * finds a byte to read.
 */
final class DataNodeExport {
    /** One record of the export: the key as the DataNode names it and the stored value, decoded. */
    record Record(String key, Item item) {
    }

    private DataNodeExport() {
    }

    /**
     * Lists the node's live records, handing each to {@code records}.
     *
     * @param readTimeoutMillis the longest wait for the next line
     * @throws IOException when the node cannot be reached or the export does not end with {@code -1}
     */
    static void export(NodeAddress node, int connectTimeoutMillis, int readTimeoutMillis, long nowMillis,
                       Consumer<Record> records) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(node.host(), node.port()), connectTimeoutMillis);
            socket.setSoTimeout(readTimeoutMillis);
            OutputStream out = socket.getOutputStream();
            // The second line: check for a stop request within 1 ms every 1000 records, no pause between lines.
            out.write("101\n1,0\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("-1")) {
                    out.write((MasterConnection.CLOSE + "\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return;
                }
                Record record = parse(line, nowMillis);
                if (record != null) {
                    records.accept(record);
                }
            }
            throw new IOException("okuyama DataNode " + node + " closed the connection before the end of its export");
        }
    }

    /**
     * One export line, or null for what is not a live record: a record deleted while the export ran (its value
     * {@code null}), an expired one (DataNodes purge them only now and then), a line of another shape.
     */
    static Record parse(String line, long nowMillis) {
        if (!line.startsWith("+,") || !line.endsWith(",;")) {
            return null;
        }
        String body = line.substring(2, line.length() - 2);
        int keyEnd = body.indexOf(',');
        int valueEnd = body.lastIndexOf(','); // the value may hold commas (its expiry); the time after it does not
        if (keyEnd <= 0 || valueEnd <= keyEnd) {
            return null;
        }
        String key = body.substring(0, keyEnd);
        String stored = body.substring(keyEnd + 1, valueEnd);
        if (stored.equals("null")) {
            return null;
        }
        Item item = item(stored);
        if (item == null || item.isExpiredAt(nowMillis)) {
            return null;
        }
        return new Record(key, item);
    }

    /**
     * A stored value, {@code <Base64 value or (B)>[,<flags>-<expiry ms>-<seconds>]!<version>}, as an item; null
     * when it is not one (a tag's or list's record).
     */
    static Item item(String stored) {
        int bang = stored.lastIndexOf('!');
        String version = bang < 0 ? "" : stored.substring(bang + 1);
        String rest = bang < 0 ? stored : stored.substring(0, bang);
        int comma = rest.indexOf(',');
        String value = comma < 0 ? rest : rest.substring(0, comma);
        long expiresAt = Item.NEVER;
        if (comma >= 0) {
            String[] meta = rest.substring(comma + 1).split("-");
            if (meta.length >= 2) {
                try {
                    expiresAt = Long.parseLong(meta[1]);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        byte[] bytes;
        if (value.equals(OkuyamaBackend.BLANK)) {
            bytes = new byte[0];
        } else {
            try {
                bytes = Base64.getDecoder().decode(value);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return new Item(bytes, 0, OkuyamaVersions.cas(version), expiresAt);
    }
}
