package kvgate.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import kvgate.net.HttpAnswer;
import kvgate.route.BackendRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the gateway's meters for Prometheus to scrape: {@code GET /metrics} answers them in Prometheus's text
 * format (what {@code stats} on the admin port lists, with JVM and process figures besides), then the numeric
 * figures of the backend instances in force, each stat as {@code kvgate_backend_<stat>{backend="<name>"}} (not
 * {@code instance}, the label Prometheus gives each target), read at the scrape as the instances of a reloaded tree
 * change; {@code HEAD} the same without the body. Any other path is 404, any other method 405, a failed reading 500.
 *
 * <p>The meters are read on the admin thread, not on the network thread that serves clients' connections too. Every
 * request of a connection is answered through that one thread, so pipelined requests are answered in order, and the
 * connection is not read while its requests wait there, so one client cannot queue scrapes without bound.
 */
public final class PrometheusEndpoint extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(PrometheusEndpoint.class);
    /** The path Prometheus scrapes by default. */
    public static final String PATH = "/metrics";
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private final PrometheusMeterRegistry registry;
    private final Supplier<List<BackendRoute>> backends;
    private final Executor reader;
    /** The connection's requests read and not yet answered; confined to the connection's event loop. */
    private int waiting;

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
                if (value != null && NUMBER.matcher(value).matches()) {
                    String family = "kvgate_backend_" + stat.replaceAll("[^a-zA-Z0-9_]", "_");
                    families.computeIfAbsent(family, name -> new StringBuilder("# TYPE " + name + " untyped\n"))
                            .append(family).append("{backend=\"").append(escape(instance.name())).append("\"} ")
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
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
        Supplier<HttpAnswer> answer = answer(request);
        waiting++;
        ctx.channel().config().setAutoRead(false);
        try {
            reader.execute(() -> {
                HttpAnswer answered;
                try {
                    answered = answer.get();
                } catch (RuntimeException e) {
                    LOG.warn("the meters could not be read for a scrape", e);
                    answered = HttpAnswer.text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                            "the meters could not be read\n");
                }
                HttpAnswer reply = answered;
                ctx.executor().execute(() -> {
                    reply.write(ctx, keepAlive);
                    if (--waiting == 0) {
                        ctx.channel().config().setAutoRead(true);
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            HttpAnswer.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "the gateway is stopping\n").write(ctx, false);
        }
    }

    /** What a request gets, made on the admin thread (the scrape is read there). */
    private Supplier<HttpAnswer> answer(FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            return () -> HttpAnswer.text(HttpResponseStatus.BAD_REQUEST, "bad request\n");
        }
        if (!new QueryStringDecoder(request.uri()).path().equals(PATH)) {
            return () -> HttpAnswer.text(HttpResponseStatus.NOT_FOUND, "the meters are at " + PATH + "\n");
        }
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            return () -> HttpAnswer.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD\n");
        }
        boolean head = method.equals(HttpMethod.HEAD);
        return () -> new HttpAnswer(HttpResponseStatus.OK, CONTENT_TYPE, scrape().getBytes(StandardCharsets.UTF_8),
                head, false);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing a metrics connection from {} after an error", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
