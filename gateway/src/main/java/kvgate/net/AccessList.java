package kvgate.net;

import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import kvgate.config.ConfigurationException;

/**
 * The client networks a listener accepts ({@code <listener>.allow}): a comma-separated list of CIDR blocks, IPv4 or
 * IPv6 ({@code 10.0.0.0/8, 2001:db8::/32}), a bare address standing for itself alone. Empty allows every address.
 * A connection from elsewhere is closed before anything of it is read, a datagram dropped unanswered; clients on a
 * Unix domain socket are this host's, and the socket's mode ({@code socket_mode}) is their access list.
 */
public final class AccessList {
    /** Every address. */
    public static final AccessList ANY = new AccessList("", List.of());

    private final String text;
    private final List<IpSubnetFilterRule> blocks;

    private AccessList(String text, List<IpSubnetFilterRule> blocks) {
        this.text = text;
        this.blocks = blocks;
    }

    /**
     * Reads the setting {@code key}'s value.
     *
     * @throws ConfigurationException naming the entry that is no address or block
     */
    public static AccessList parse(String key, String value) throws ConfigurationException {
        List<IpSubnetFilterRule> blocks = new ArrayList<>();
        for (String entry : value.split(",")) {
            String block = entry.strip();
            if (block.isEmpty()) {
                continue;
            }
            int slash = block.indexOf('/');
            String address = slash < 0 ? block : block.substring(0, slash);
            // Literal addresses only: a host name here would be looked up, and could change under the list.
            byte[] literal = NetUtil.createByteArrayFromIpAddressString(address);
            InetAddress parsed;
            try {
                if (literal == null) {
                    throw new UnknownHostException(address);
                }
                parsed = InetAddress.getByAddress(literal);
            } catch (UnknownHostException e) {
                throw new ConfigurationException(key + ": '" + block + "' is not an IPv4 or IPv6 address or block "
                        + "(address/prefix length)");
            }
            int max = parsed.getAddress().length * 8;
            int prefix = max;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(block.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > max) {
                    throw new ConfigurationException(key + ": '" + block + "' has a prefix length outside 0-" + max);
                }
            }
            blocks.add(new IpSubnetFilterRule(parsed, prefix, IpFilterRuleType.ACCEPT));
        }
        return blocks.isEmpty() ? ANY : new AccessList(value.strip(), List.copyOf(blocks));
    }

    /** Whether a client at {@code peer} may connect or send: any peer that is not an IP address may. */
    public boolean allows(SocketAddress peer) {
        if (blocks.isEmpty() || !(peer instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return true;
        }
        for (IpSubnetFilterRule block : blocks) {
            if (block.matches(inet)) {
                return true;
            }
        }
        return false;
    }

    /** Whether it lets every address through. */
    public boolean isAny() {
        return blocks.isEmpty();
    }

    @Override
    public String toString() {
        return blocks.isEmpty() ? "any address" : text;
    }
}
