package kvgate.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One answer of the gateway's small HTTP endpoints (the metrics and the Couchbase management port), which serve GET
 * and HEAD of a few paths: its status, body and whether the connection closes after it.
 *
 * @param head whether the body is left out (a HEAD), its length still given
 * @param close whether the connection is closed once it is written, whatever the client asked
 */
public record HttpAnswer(HttpResponseStatus status, String contentType, byte[] body, boolean head, boolean close) {
    private static final String TEXT = "text/plain; charset=utf-8";
    /**
     * A connection to an HTTP listener idle this long is closed: Prometheus scrapes every few seconds and an SDK asks
     * when it waits, and either reconnects.
     */
    public static final int IDLE_SECONDS = 300;
    /** What the HTTP listeners serve are GETs of one path (with basic authentication): nothing longer is needed. */
    private static final int MAX_REQUEST = 8192;

    /** The pipeline of an HTTP listener: a request whole, then {@code endpoint}, a new one per connection. */
    public static Consumer<ChannelPipeline> pipeline(Supplier<ChannelHandler> endpoint) {
        return pipeline -> pipeline.addLast(new HttpServerCodec()).addLast(new HttpObjectAggregator(MAX_REQUEST))
                .addLast(endpoint.get());
    }

    /** A plain-text answer, the connection kept. */
    public static HttpAnswer text(HttpResponseStatus status, String text) {
        return new HttpAnswer(status, TEXT, text.getBytes(StandardCharsets.UTF_8), false, false);
    }

    /** The same answer, then the connection closed. */
    public HttpAnswer closing() {
        return new HttpAnswer(status, contentType, body, head, true);
    }

    /**
     * Writes the answer: a 405 names the methods served (GET, HEAD), a 401 the basic authentication asked for; the
     * connection is closed after it unless the client keeps it alive and the answer does not close it.
     */
    public void write(ChannelHandlerContext ctx, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        }
        if (status.equals(HttpResponseStatus.UNAUTHORIZED)) {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"kvgate\"");
        }
        if (keepAlive && !close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
