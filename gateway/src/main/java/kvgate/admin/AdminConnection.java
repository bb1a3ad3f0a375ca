package kvgate.admin;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One admin connection: request lines in, replies out in order. Commands run on the admin thread, not the network
 * threads, because a reload opens backends and may wait on them; the connection reads its next line only once the
 * reply to this one is written.
 */
public final class AdminConnection extends SimpleChannelInboundHandler<String> {
    private final AdminCommands commands;
    private final Executor adminThread;

    public AdminConnection(AdminCommands commands, Executor adminThread) {
        this.commands = commands;
        this.adminThread = adminThread;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, String line) {
        try {
            adminThread.execute(() -> {
                List<String> reply = commands.run(line);
                if (reply.isEmpty()) {
                    ctx.close();
                    return;
                }
                ctx.writeAndFlush(String.join("\r\n", reply) + "\r\n").addListener((ChannelFutureListener) written -> {
                    if (written.isSuccess()) {
                        ctx.read();
                    } else {
                        ctx.close();
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            ctx.writeAndFlush("ERROR request line too long\r\n").addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
