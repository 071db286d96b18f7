package dev.streamfold.e2e;

import dev.streamfold.server.ServerOptions;
import dev.streamfold.server.StreamfoldServer;
import dev.streamfold.testkit.Testkit;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One whole {@link StreamfoldServer} for a test class, on the test kit's Pulsar and Redis, with a gRPC channel and
 * a RESP connection that authenticate with its admin token. Register it on a static field with
 * {@code @RegisterExtension}: it starts before the class's {@code @BeforeAll} methods and closes (RESP
 * connection, channel, server) after its {@code @AfterAll} methods. gRPC is served in process unless
 * {@link #overTcp()} asks for a Netty port on the loopback address.
 */
final class StreamfoldServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final Path dataDir;
  private final String tenant;
  private final Duration checkpointInterval;
  private final GrpcClients clients;
  private boolean overTcp;
  private int metricsPort = ServerOptions.METRICS_DISABLED;
  private UnaryOperator<ManagedChannelBuilder<?>> channelOptions = builder -> builder;
  private String inProcessName;
  private StreamfoldServer server;
  private ManagedChannel channel;
  private RedisClient redisClient;
  private StatefulRedisConnection<String, String> resp;

  private StreamfoldServerExtension(Path dataDir, String tenant, Duration checkpointInterval) {
    this.dataDir = dataDir;
    this.tenant = tenant;
    this.checkpointInterval = checkpointInterval;
    this.clients = new GrpcClients(() -> channel, tenant);
  }

  /**
   * A server that serves one tenant, which is also its default tenant.
   *
   * @param dataDir the server's data directory (catalog, checkpoints)
   * @param checkpointInterval how often view jobs checkpoint and commit
   */
  static StreamfoldServerExtension forTenant(Path dataDir, String tenant, Duration checkpointInterval) {
    return new StreamfoldServerExtension(dataDir, tenant, checkpointInterval);
  }

  /** Serve gRPC on a Netty port of 127.0.0.1 (the real transport) instead of in process. */
  StreamfoldServerExtension overTcp() {
    overTcp = true;
    return this;
  }

  /** Serve {@code /metrics} on a free port ({@link StreamfoldServer#metricsPort()}). */
  StreamfoldServerExtension withMetrics() {
    metricsPort = 0;
    return this;
  }

  /** Options of the admin channel beyond its transport and token, such as a larger inbound message size. */
  StreamfoldServerExtension channelOptions(UnaryOperator<ManagedChannelBuilder<?>> options) {
    channelOptions = options;
    return this;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    ServerOptions options = ServerOptions.builder(dataDir, Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl(),
        Testkit.redis().uri()).defaultTenant(tenant).checkpointInterval(checkpointInterval).tenants(Set.of(tenant))
        .metricsPort(metricsPort).build();
    if (overTcp) {
      server = new StreamfoldServer(options).start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    } else {
      inProcessName = InProcessServerBuilder.generateName();
      server = new StreamfoldServer(options).start(InProcessServerBuilder.forName(inProcessName));
    }
    channel = channelOptions.apply(newChannel().intercept(TestAuth.bearer(server.adminToken()))).build();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (resp != null) {
      resp.close();
      redisClient.shutdown();
    }
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The running server. */
  StreamfoldServer server() {
    return server;
  }

  /** The channel that sends the admin token with every call. */
  ManagedChannel channel() {
    return channel;
  }

  /**
   * The gRPC calls of the tests on {@link #channel()}, naming the tenant. Usable from a static initializer: the
   * channel is looked up at each call, once the server runs.
   */
  GrpcClients clients() {
    return clients;
  }

  /** A builder of another channel to the server, with no token: build it, and shut it down, yourself. */
  ManagedChannelBuilder<?> newChannel() {
    return overTcp ? NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext()
        : InProcessChannelBuilder.forName(inProcessName);
  }

  /** A RESP connection that authenticates as the tenant with the admin token, opened on first use. */
  synchronized StatefulRedisConnection<String, String> resp() {
    if (resp == null) {
      redisClient = RedisClient.create(TestAuth.respUri(tenant, server.adminToken(), server.respPort()));
      resp = redisClient.connect();
    }
    return resp;
  }
}
