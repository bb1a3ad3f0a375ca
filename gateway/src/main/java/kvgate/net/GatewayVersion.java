package kvgate.net;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The gateway's release version, and the commit it was built from, from the build. */
public final class GatewayVersion {
    private static final Properties BUILT = read();
    public static final String VERSION = BUILT.getProperty("version", "unknown");
    /** The abbreviated commit the build was made from; "unknown" for a build outside a git work tree. */
    public static final String BUILD = known(BUILT.getProperty("build", ""));

    private GatewayVersion() {
    }

    private static Properties read() {
        Properties properties = new Properties();
        try (InputStream in = GatewayVersion.class.getResourceAsStream("/kvgate/version.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // the defaults say unknown
        }
        return properties;
    }

    /** A value the build filled in, or "unknown" where it left its placeholder. */
    private static String known(String value) {
        return value.isEmpty() || value.startsWith("${") ? "unknown" : value;
    }
}
