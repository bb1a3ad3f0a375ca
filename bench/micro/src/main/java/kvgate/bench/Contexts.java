package kvgate.bench;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;

/** A real channel handler context for a codec called directly: its allocator is the channel's, as in the gateway. */
public final class Contexts {
    private Contexts() {
    }

    public static ChannelHandlerContext of(ChannelHandler handler) {
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        return channel.pipeline().context(handler);
    }
}
