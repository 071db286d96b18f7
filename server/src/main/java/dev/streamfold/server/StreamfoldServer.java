package dev.streamfold.server;

import dev.streamfold.api.auth.AuthInterceptor;
import dev.streamfold.api.auth.Caller;
import dev.streamfold.api.grpc.ParseGuard;
import dev.streamfold.core.AdminToken;
import dev.streamfold.core.ApiToken;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.grpc.IngestGrpcService;
import dev.streamfold.ledger.grpc.StreamAdminGrpcService;
import dev.streamfold.ledger.grpc.TenantGrpcService;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.ledger.tenant.IngestLimiter;
import dev.streamfold.ledger.tenant.TenantRegistry;
import dev.streamfold.query.RespAuthenticator;
import dev.streamfold.query.RespServer;
import dev.streamfold.query.RespServerOptions;
import dev.streamfold.query.ViewSources;
import dev.streamfold.query.grpc.ViewGrpcService;
import dev.streamfold.server.metrics.ServerMetrics;
import dev.streamfold.transforms.TransformOptions;
import dev.streamfold.transforms.grpc.ReplayGrpcService;
import dev.streamfold.transforms.grpc.TransformGrpcService;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewStore;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Streamfold server: gRPC ingestion and administration ({@code IngestService}, {@code StreamAdmin},
 * {@code TransformService}, {@code ReplayService}), the transform manager with its embedded Flink
 * MiniCluster, and the query-service (Redis protocol, and gRPC {@code ViewService}), in one JVM.
 *
 * <p>A gRPC request that does not parse (a string field that is not UTF-8, bytes that are not protobuf) is
 * refused with INVALID_ARGUMENT naming the field, on every service ({@link ParseGuard}).
 *
 * <p>Every gRPC call and every RESP connection is authenticated (there is no switch to turn it off): gRPC by
 * {@link AuthInterceptor} (metadata {@code authorization: Bearer <token>}), RESP by {@code AUTH}. Tokens are
 * the tenants' tokens of the {@link TenantRegistry} (hashed in the ledger's cluster table, re-read every
 * {@value TenantRegistry#DEFAULT_REFRESH_INTERVAL_MS} ms for other servers' changes) and the server's
 * {@link AdminToken}. Over RESP the admin token reads the tenant named as the user
 * ({@code AUTH <tenant> <admin token>}); a tenant token takes the user {@code default} or its tenant's name.
 */
public final class StreamfoldServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamfoldServer.class);

  private final ServerOptions options;
  private TenantRegistry tenants;
  private String adminTokenHash;
  private ScheduledExecutorService refresher;
  private PulsarLedger ledger;
  private ViewStore views;
  private TransformManager transforms;
  private Server grpc;
  private ReplayGrpcService replays;
  private ViewGrpcService viewReads;
  private RespServer resp;
  private ServerMetrics metrics;

  public StreamfoldServer(ServerOptions options) {
    this.options = options;
  }

  /**
   * Connect to Pulsar and Redis, resume every view, and start serving gRPC and RESP.
   *
   * @param grpcBuilder the gRPC server builder (tests pass an in-process one); null for Netty on
   *     {@link ServerOptions#grpcPort()}
   * @return this server
   * @throws IllegalStateException if a port is taken (the message names it)
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar cannot be reached
   */
  public StreamfoldServer start(ServerBuilder<?> grpcBuilder) {
    ledger = PulsarLedger.connect(LedgerOptions.of(options.pulsarServiceUrl(), options.pulsarAdminUrl())
        .withBookieAdminUrl(options.bookieAdminUrl()).withClockInterval(options.clockInterval()));
    // this server's writer of the clock of each existing tenant it runs (all of them without --tenants); a tenant
    // provisioned later through this server gets one then
    ledger.tenants().stream().filter(t -> options.tenants().isEmpty() || options.tenants().contains(t))
        .forEach(ledger::startClock);
    String adminToken = AdminToken.loadOrCreate(options.dataDir());
    adminTokenHash = ApiToken.hash(adminToken);
    tenants = TenantRegistry.open(ledger);
    refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tenant-registry-refresh");
      t.setDaemon(true);
      return t;
    });
    refresher.scheduleWithFixedDelay(this::refreshTenants, TenantRegistry.DEFAULT_REFRESH_INTERVAL_MS,
        TenantRegistry.DEFAULT_REFRESH_INTERVAL_MS, TimeUnit.MILLISECONDS);
    views = ViewStore.connect(options.redisUri());
    transforms = new TransformManager(ledger, views, TransformOptions.builder(options.redisUri(), options.dataDir())
        .checkpointInterval(options.checkpointInterval())
        .tenants(options.tenants())
        .flinkRestAddress(options.flinkRestAddress())
        .checkpointsUri(options.checkpointsUri())
        .build());
    transforms.start();
    metrics = new ServerMetrics(ledger, options.tenants(), transforms, views);
    ServerBuilder<?> builder = grpcBuilder != null ? grpcBuilder
        : NettyServerBuilder.forAddress(new InetSocketAddress(options.bindHost(), options.grpcPort()));
    HealthStatusManager health = new HealthStatusManager();
    replays = new ReplayGrpcService(transforms);
    ViewSources sources = new TransformViewSources(transforms);
    viewReads = new ViewGrpcService(views, sources);
    builder.maxInboundMessageSize(IngestGrpcService.MAX_REQUEST_BYTES);
    AuthInterceptor auth = new AuthInterceptor(this::verify, this::adminActsFor);
    grpc = builder
        // below every interceptor: it also counts the calls AuthInterceptor, ParseGuard or the transport refuses
        .addStreamTracerFactory(metrics.grpcCallCounter())
        .addService(served(new IngestGrpcService(ledger, new IngestLimiter(tenants::limits, System::nanoTime),
            metrics.ingest()).definition(), auth))
        .addService(served(new TenantGrpcService(tenants).bindService(), auth))
        .addService(served(new StreamAdminGrpcService(ledger).bindService(), auth))
        .addService(served(new TransformGrpcService(transforms).bindService(), auth))
        .addService(served(replays.bindService(), auth))
        .addService(served(viewReads.bindService(), auth))
        .addService(served(health.getHealthService().bindService(), auth))
        .addService(served(ProtoReflectionServiceV1.newInstance().bindService(), auth))
        .build();
    metrics.servedMethods(grpc);
    try {
      grpc.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start gRPC on " + options.bindHost() + ":" + options.grpcPort()
          + " (port in use?): " + e.getMessage(), e);
    }
    resp = new RespServer(views, RespServerOptions.defaults().withHost(options.bindHost())
        .withPort(options.respPort()).withDefaultTenant(options.defaultTenant()),
        sources, respAuthenticator()).listener(metrics.resp());
    resp.start();
    if (options.metricsPort() != ServerOptions.METRICS_DISABLED) {
      metrics.serve(options.bindHost(), options.metricsPort());
    }
    return this;
  }

  /**
   * A service as served: authenticated ({@link AuthInterceptor}, which reads each request's tenant), inside
   * {@link ParseGuard}, so that a request that does not parse (a string field that is not UTF-8, bytes that are
   * not protobuf) ends its call with INVALID_ARGUMENT naming the field instead of grpc-java's UNKNOWN, and the
   * interceptor only ever sees parsed requests. Per service rather than {@code ServerBuilder.intercept}: a
   * server-wide interceptor would run outside the guard.
   */
  private static ServerServiceDefinition served(ServerServiceDefinition service, AuthInterceptor auth) {
    return ParseGuard.guard(ServerInterceptors.intercept(service, auth));
  }

  /**
   * Find who a token belongs to: the admin, or a tenant with a valid token.
   *
   * @param token the token as sent
   * @return the caller, or empty
   */
  private Optional<Caller> verify(String token) {
    if (!ApiToken.wellFormed(token)) {
      return Optional.empty();
    }
    String hash = ApiToken.hash(token);
    if (MessageDigest.isEqual(hash.getBytes(StandardCharsets.US_ASCII), adminTokenHash.getBytes(StandardCharsets.US_ASCII))) {
      return Optional.of(Caller.admin(ApiToken.id(hash)));
    }
    return tenants.authenticate(token).map(t -> Caller.ofTenant(t.tenant(), t.id()));
  }

  /**
   * RESP credentials checked against the admin token and the tenant registry; a connection re-hashes its
   * token only when the registry's generation changed (a token issued or revoked here, or a refresh), so a
   * revocation stops open connections on their next command once this server sees it.
   */
  private RespAuthenticator respAuthenticator() {
    TenantRegistry registry = tenants;
    return new RespAuthenticator() {
      @Override
      public Optional<String> tenant(String user, String token) {
        return respTenant(user, token);
      }

      @Override
      public long generation() {
        return registry.generation();
      }
    };
  }

  /** The tenant RESP credentials select: a tenant token with user default or its tenant, or admin + tenant. */
  private Optional<String> respTenant(String user, String token) {
    return verify(token).flatMap(caller -> {
      if (caller.isAdmin()) {
        return user.equals("default") || !isTenantName(user) || !adminActsFor(user) ? Optional.empty()
            : Optional.of(user);
      }
      return user.equals("default") || user.equals(caller.tenant()) ? Optional.of(caller.tenant()) : Optional.empty();
    });
  }

  /**
   * Whether the admin token acts for a tenant: a registered one, one this server is configured with
   * ({@code --tenants}), or its default tenant. Not any name: a mistyped {@code --tenant} would otherwise
   * provision a Pulsar tenant with its first stream, unregistered and out of {@code tenant list}.
   */
  private boolean adminActsFor(String tenant) {
    // a malformed name goes on to the service, whose INVALID_ARGUMENT says what is wrong with it
    return !isTenantName(tenant) || tenant.equals(options.defaultTenant()) || options.tenants().contains(tenant)
        || tenants.get(tenant).isPresent();
  }

  private static boolean isTenantName(String name) {
    try {
      StreamRef.checkTenant(name);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void refreshTenants() {
    try {
      tenants.refresh();
    } catch (RuntimeException e) {
      LOG.warn("cannot refresh the tenant registry (kept the last copy): {}", e.getMessage());
    }
  }

  /**
   * The tenant registry, for integration tests in this package.
   */
  TenantRegistry tenants() {
    return tenants;
  }

  /**
   * Return the admin token (also in {@link AdminToken#file} of the data directory), for tests and tools that
   * embed the server.
   *
   * @return the admin token text
   */
  public String adminToken() {
    return AdminToken.read(options.dataDir());
  }

  /** The gRPC port (-1 for an in-process server). */
  public int grpcPort() {
    return grpc.getPort();
  }

  /**
   * The transform manager this server runs, for end-to-end tests (module e2e): closing it stops every view's
   * job while ingestion and the query-service keep serving.
   *
   * @return the server's transform manager (the same instance for the server's life)
   */
  public TransformManager transforms() {
    return transforms;
  }

  /** The Redis-protocol port of the query-service. */
  public int respPort() {
    return resp.port();
  }

  /** The port of the Prometheus {@code /metrics} endpoint, -1 when {@link ServerOptions#metricsPort()} is disabled. */
  public int metricsPort() {
    return metrics.port();
  }

  /** Stop serving; jobs keep their retained checkpoints and resume on the next start. */
  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (resp != null) {
      resp.close();
    }
    if (grpc != null) {
      grpc.shutdown();
      try {
        grpc.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      grpc.shutdownNow();
    }
    if (replays != null) {
      replays.close();
    }
    if (viewReads != null) {
      viewReads.close();
    }
    if (transforms != null) {
      transforms.close();
    }
    if (views != null) {
      views.close();
    }
    if (ledger != null) {
      ledger.close();
    }
  }

}
