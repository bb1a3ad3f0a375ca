package kvgate.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import kvgate.dispatch.BackendRoute;

/**
 * Serves the gateway's meters for Prometheus to scrape: {@code GET /metrics} answers them in Prometheus's text
 * format (what {@code stats} on the admin port lists, with JVM and process figures besides), then the numeric
 * figures of the backend instances in force, each stat as {@code kvgate_backend_<stat>{instance="<name>"}}, read
 * at the scrape as the instances of a reloaded tree change; {@code HEAD} the same without the body. Any other path
 * is 404, any other method 405. The meters are read on the admin thread, not on the network thread that serves
 * clients' connections too.
 */
public final class PrometheusEndpoint extends SimpleChannelInboundHandler<FullHttpRequest> {
    /** The path Prometheus scrapes by default. */
    public static final String PATH = "/metrics";
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private final PrometheusMeterRegistry registry;
    private final Supplier<List<BackendRoute>> backends;
    private final Executor reader;

    /**
     * @param backends the backend instances of the tree in force
     * @param reader where the meters are read, off the network threads
     */
    public PrometheusEndpoint(PrometheusMeterRegistry registry, Supplier<List<BackendRoute>> backends,
                              Executor reader) {
        this.registry = registry;
        this.backends = backends;
        this.reader = reader;
    }

    /** The scrape: the registry's meters, then the backend instances' figures, a family per stat. */
    private String scrape() {
        Map<String, StringBuilder> families = new TreeMap<>();
        for (BackendRoute instance : backends.get()) {
            instance.backend().stats().forEach((stat, value) -> {
                if (NUMBER.matcher(value).matches()) {
                    String family = "kvgate_backend_" + stat.replaceAll("[^a-zA-Z0-9_]", "_");
                    families.computeIfAbsent(family, name -> new StringBuilder("# TYPE " + name + " untyped\n"))
                            .append(family).append("{instance=\"").append(escape(instance.name())).append("\"} ")
                            .append(value).append('\n');
                }
            });
        }
        StringBuilder text = new StringBuilder(registry.scrape());
        families.values().forEach(text::append);
        return text.toString();
    }

    /** A label value as Prometheus's text format writes it. */
    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!request.decoderResult().isSuccess()) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, "bad request\n", false, false);
            return;
        }
        if (!new QueryStringDecoder(request.uri()).path().equals(PATH)) {
            respond(ctx, HttpResponseStatus.NOT_FOUND, "the meters are at " + PATH + "\n", keepAlive, false);
            return;
        }
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD\n", keepAlive, false);
            return;
        }
        boolean head = method.equals(HttpMethod.HEAD);
        try {
            reader.execute(() -> {
                String scraped = scrape();
                ctx.executor().execute(() -> respond(ctx, HttpResponseStatus.OK, scraped, keepAlive, head));
            });
        } catch (RejectedExecutionException e) {
            respond(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "the gateway is stopping\n", false, false);
        }
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String text, boolean keepAlive,
                                boolean head) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuf content = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, status == HttpResponseStatus.OK ? CONTENT_TYPE
                : "text/plain; charset=utf-8");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (status == HttpResponseStatus.METHOD_NOT_ALLOWED) {
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        }
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
