package dev.streamfold.deploy.local;

import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.grpc.IngestGrpcService;
import dev.streamfold.ledger.grpc.StreamAdminGrpcService;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.query.RespServer;
import dev.streamfold.query.RespServerOptions;
import dev.streamfold.query.grpc.ViewGrpcService;
import dev.streamfold.transforms.TransformManager;
import dev.streamfold.transforms.TransformOptions;
import dev.streamfold.transforms.grpc.ReplayGrpcService;
import dev.streamfold.transforms.grpc.TransformGrpcService;
import dev.streamfold.views.ViewStore;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Streamfold server: gRPC ingestion and administration ({@code IngestService}, {@code StreamAdmin},
 * {@code TransformService}, {@code ReplayService}), the transform manager with its embedded Flink
 * MiniCluster, and the query-service (Redis protocol, and gRPC {@code ViewService}), in one JVM.
 */
public final class StreamfoldServer implements AutoCloseable {
  private final ServerOptions options;
  private PulsarLedger ledger;
  private ViewStore views;
  private TransformManager transforms;
  private Server grpc;
  private ReplayGrpcService replays;
  private ViewGrpcService viewReads;
  private RespServer resp;

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
        .withBookieAdminUrl(options.bookieAdminUrl()));
    views = ViewStore.connect(options.redisUri());
    transforms = new TransformManager(ledger, views, new TransformOptions(options.redisUri(), options.dataDir(),
        options.checkpointInterval(), TransformOptions.DEFAULT_PARALLELISM, TransformOptions.DEFAULT_TASK_SLOTS,
        options.tenants()));
    transforms.start();
    ServerBuilder<?> builder = grpcBuilder != null ? grpcBuilder
        : NettyServerBuilder.forAddress(new InetSocketAddress(options.bindHost(), options.grpcPort()));
    HealthStatusManager health = new HealthStatusManager();
    replays = new ReplayGrpcService(transforms);
    viewReads = new ViewGrpcService(views);
    builder.maxInboundMessageSize(IngestGrpcService.MAX_REQUEST_BYTES);
    grpc = builder
        .addService(new IngestGrpcService(ledger).definition())
        .addService(new StreamAdminGrpcService(ledger))
        .addService(new TransformGrpcService(transforms))
        .addService(replays)
        .addService(viewReads)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build();
    try {
      grpc.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start gRPC on " + options.bindHost() + ":" + options.grpcPort()
          + " (port in use?): " + e.getMessage(), e);
    }
    resp = new RespServer(views, RespServerOptions.defaults().withHost(options.bindHost())
        .withPort(options.respPort()).withDefaultTenant(options.defaultTenant()),
        view -> transforms.sourceEvents(view.tenant(), view.view()));
    resp.start();
    return this;
  }

  /** The gRPC port (-1 for an in-process server). */
  public int grpcPort() {
    return grpc.getPort();
  }

  /**
   * The transform manager, for integration tests in this package (e.g. closing it stops every view's job
   * while ingestion and the query-service keep serving).
   */
  TransformManager transforms() {
    return transforms;
  }

  /** The Redis-protocol port of the query-service. */
  public int respPort() {
    return resp.port();
  }

  /** Stop serving; jobs keep their retained checkpoints and resume on the next start. */
  @Override
  public void close() {
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
