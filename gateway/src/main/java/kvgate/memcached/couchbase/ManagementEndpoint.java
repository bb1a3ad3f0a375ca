package kvgate.memcached.couchbase;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import kvgate.collections.BucketManifests;
import kvgate.net.HttpAnswer;
import kvgate.net.ListenerTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The little of a Couchbase node's management (HTTP) port that an SDK's {@code waitUntilReady} asks: once it has the
 * cluster map, a client waiting for a bucket sends {@code GET /pools/default/buckets/<bucket>} to the management
 * port the map names and waits until every node of the answer says {@code "status":"healthy"}. The answer is the map
 * the memcached port gives (GET_CLUSTER_CONFIG), its node "healthy" once the bucket's collections manifest is known
 * (the bucket's documents are served), "warmup" before. The buckets are the memcached port's ({@code buckets}); any
 * other is 404, as is any other path, and any other method than GET and HEAD is 405.
 *
 * <p>With a password file ({@code memcached.sasl_pwdb}) a request must carry HTTP basic authentication of one of
 * its users, as an SDK sends it: without it, 401 before anything else, so that the answer does not tell which
 * buckets exist; a wrong password closes the connection after its 401, so that guesses cost a connection each.
 *
 * <p>Each answer is a lookup and a small map, made on the connection's network thread.
 */
public final class ManagementEndpoint extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(ManagementEndpoint.class);
    /** Where a bucket's map is asked for; the bucket's name, URL-encoded, follows. */
    public static final String BUCKETS_PATH = "/pools/default/buckets/";
    private static final String BASIC = "basic ";

    private final BucketManifests manifests;
    private final SaslUsers users;
    private final ClusterConfig cluster;
    /** Which user a client certificate names; null when certificates log no one in. */
    private final CertificateUsers certificateUsers;

    /**
     * @param users the users whose basic authentication is required; null when none is
     * @param cluster the map to answer: the memcached port clients are told of, and this port
     * @param certificateUsers which user a client certificate names, who needs no basic authentication (as the
     *     memcached port logs them in without SASL); null when certificates log no one in
     */
    public ManagementEndpoint(BucketManifests manifests, SaslUsers users, ClusterConfig cluster,
                              CertificateUsers certificateUsers) {
        this.manifests = manifests;
        this.users = users;
        this.cluster = cluster;
        this.certificateUsers = certificateUsers;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        answer(ctx, request).write(ctx, HttpUtil.isKeepAlive(request));
    }

    private HttpAnswer answer(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            return HttpAnswer.text(HttpResponseStatus.BAD_REQUEST, "bad request\n").closing();
        }
        CertificateUsers.Login login = certificateUsers == null ? new CertificateUsers.NoCertificate()
                : certificateUsers.login(ListenerTls.peerCertificate(ctx.channel()), users);
        if (login instanceof CertificateUsers.Refused) {
            return HttpAnswer.text(HttpResponseStatus.UNAUTHORIZED, "the client certificate names no user of the "
                    + "gateway's password file\n").closing();
        }
        if (users != null && login instanceof CertificateUsers.NoCertificate) {
            String credentials = request.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (credentials == null || !authenticated(credentials)) {
                HttpAnswer refused = HttpAnswer.text(HttpResponseStatus.UNAUTHORIZED,
                        "authentication required: a user of the gateway's password file\n");
                return credentials == null ? refused : refused.closing();
            }
        }
        String path = new QueryStringDecoder(request.uri()).rawPath();
        if (!path.startsWith(BUCKETS_PATH) || path.length() == BUCKETS_PATH.length()
                || path.indexOf('/', BUCKETS_PATH.length()) >= 0) {
            return HttpAnswer.text(HttpResponseStatus.NOT_FOUND,
                    "not found: a bucket's map is at " + BUCKETS_PATH + "<bucket>\n");
        }
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            return HttpAnswer.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD\n");
        }
        String name;
        try {
            name = QueryStringDecoder.decodeComponent(path.substring(BUCKETS_PATH.length()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return HttpAnswer.text(HttpResponseStatus.BAD_REQUEST, "bad escape in the bucket's name\n");
        }
        BucketManifests.Bucket bucket = manifests.bucket(name);
        if (bucket == null) {
            return HttpAnswer.text(HttpResponseStatus.NOT_FOUND, "no such bucket\n");
        }
        return new HttpAnswer(HttpResponseStatus.OK, "application/json",
                cluster.managementJson(bucket.name(), bucket.manifest() != null), method.equals(HttpMethod.HEAD),
                false);
    }

    /** Whether an Authorization header is basic authentication of a user of the password file. */
    private boolean authenticated(String credentials) {
        if (!credentials.regionMatches(true, 0, BASIC, 0, BASIC.length())) {
            return false;
        }
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(credentials.substring(BASIC.length()).strip()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        // A user name has no colon (the password file splits its lines at the first); a password may.
        int colon = pair.indexOf(':');
        return colon > 0 && users.plainMatches(pair.substring(0, colon), pair.substring(colon + 1));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing a management connection from {} after an error", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
