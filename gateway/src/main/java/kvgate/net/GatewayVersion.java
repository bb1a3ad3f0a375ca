package kvgate.net;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The gateway's release version, from the build. */
public final class GatewayVersion {
    public static final String VERSION = read();

    private GatewayVersion() {
    }

    private static String read() {
        try (InputStream in = GatewayVersion.class.getResourceAsStream("/kvgate/version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
