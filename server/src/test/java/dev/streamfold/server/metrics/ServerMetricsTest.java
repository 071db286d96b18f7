package dev.streamfold.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import io.grpc.Status;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ServerMetricsTest {

  @Test
  void countsIngestRespAndViewsInTheTextFormat() throws IOException {
    ViewMetadata live = new ViewMetadata(1, ViewPhase.LIVE, 40, 30, PositionVector.EMPTY,
        PositionVector.parse("1:2:0:-1"), 3, 1_000, "");
    ServerMetrics metrics = new ServerMetrics(
        () -> List.of(new ViewCollector.ViewSample("acme", "totals", live, OptionalLong.of(45))));
    metrics.ingest().appended(new StreamRef("acme", "orders"), 7, 2_000_000);
    metrics.ingest().appended(new StreamRef("acme", "orders"), 3, 1_000_000);
    metrics.ingest().refused("acme", 2, Status.Code.RESOURCE_EXHAUSTED, 500_000);
    metrics.resp().commandDone("HGETALL", 1_000_000, null);
    metrics.resp().commandDone("OTHER", 1_000, "ERR");

    String text = scrape(metrics);

    assertThat(text).contains("streamfold_ingest_events_appended_total{stream=\"orders\",tenant=\"acme\"} 10.0")
        .contains("streamfold_ingest_refused_requests_total{code=\"RESOURCE_EXHAUSTED\",tenant=\"acme\"} 1.0")
        .contains("streamfold_ingest_refused_events_total{code=\"RESOURCE_EXHAUSTED\",tenant=\"acme\"} 2.0")
        .contains("streamfold_ingest_append_duration_seconds_count{outcome=\"appended\"} 2")
        .contains("streamfold_resp_commands_total{command=\"HGETALL\"} 1.0")
        .contains("streamfold_resp_errors_total{command=\"OTHER\",kind=\"ERR\"} 1.0")
        .contains("streamfold_view_store_up 1.0")
        .contains("streamfold_view_events_applied{tenant=\"acme\",view=\"totals\"} 40.0")
        .contains("streamfold_view_backfill_target_events{tenant=\"acme\",view=\"totals\"} 30.0")
        .contains("streamfold_view_lag_events{tenant=\"acme\",view=\"totals\"} 5.0")
        .contains("streamfold_view_rows{tenant=\"acme\",view=\"totals\"} 3.0")
        .contains("streamfold_view_phase{phase=\"LIVE\",tenant=\"acme\",view=\"totals\"} 1.0")
        .contains("streamfold_view_phase{phase=\"BACKFILLING\",tenant=\"acme\",view=\"totals\"} 0.0");
    assertThat(text).as("the client's JVM and process metrics").contains("jvm_memory_used_bytes{area=\"heap\"} ")
        .contains("jvm_threads_current ").contains("process_cpu_seconds_total ");
  }

  /** Method names come from clients: only the server's own become labels, any other counts as 'other'. */
  @Test
  void callsOfMethodsTheServerDoesNotServeCountAsOther() throws IOException {
    ServerMetrics metrics = new ServerMetrics(List::of);
    GrpcCallCounter counter = (GrpcCallCounter) metrics.grpcCallCounter();
    counter.served(java.util.Set.of("streamfold.v1.IngestService/Append"));
    counter.newServerStreamTracer("streamfold.v1.IngestService/Append", new io.grpc.Metadata())
        .streamClosed(Status.RESOURCE_EXHAUSTED);
    counter.newServerStreamTracer("made.up.Service/Method" + System.nanoTime(), new io.grpc.Metadata())
        .streamClosed(Status.UNIMPLEMENTED);
    assertThat(scrape(metrics))
        .contains("streamfold_grpc_server_calls_total{code=\"RESOURCE_EXHAUSTED\",method=\"Append\","
            + "service=\"streamfold.v1.IngestService\"} 1.0")
        .contains("streamfold_grpc_server_calls_total{code=\"UNIMPLEMENTED\",method=\"other\",service=\"other\"} 1.0")
        .doesNotContain("made.up");
  }

  /**
   * A request over the server's largest inbound message is refused by gRPC's deframer below every
   * interceptor; an interceptor never counted it. On a real Netty server and channel (in-process transports
   * do not check message sizes).
   */
  @Test
  void aRequestTheTransportRefusesIsCounted() throws Exception {
    ServerMetrics metrics = new ServerMetrics(List::of);
    io.grpc.Server server = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
        .forAddress(new java.net.InetSocketAddress("127.0.0.1", 0)).maxInboundMessageSize(1024)
        .addStreamTracerFactory(metrics.grpcCallCounter())
        .addService(new io.grpc.protobuf.services.HealthStatusManager().getHealthService()).build().start();
    metrics.servedMethods(server);
    io.grpc.ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
        .forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      var health = io.grpc.health.v1.HealthGrpc.newBlockingStub(channel);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> health.check(
          io.grpc.health.v1.HealthCheckRequest.newBuilder().setService("s".repeat(2048)).build()))
          .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
      health.check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance());
    } finally {
      channel.shutdownNow();
      server.shutdownNow().awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertThat(scrape(metrics))
        .contains("streamfold_grpc_server_calls_total{code=\"RESOURCE_EXHAUSTED\",method=\"Check\","
            + "service=\"grpc.health.v1.Health\"} 1.0")
        .contains("streamfold_grpc_server_calls_total{code=\"OK\",method=\"Check\",service=\"grpc.health.v1.Health\"} 1.0");
  }

  @Test
  void lastCommitAgeComesFromTheClockAndIsAbsentBeforeTheFirstCommit() throws IOException {
    ViewMetadata committed = new ViewMetadata(1, ViewPhase.LIVE, 1, 1, PositionVector.EMPTY, PositionVector.EMPTY, 1,
        10_000, "");
    ViewMetadata never = new ViewMetadata(1, ViewPhase.STARTING, 0, 0, PositionVector.EMPTY, PositionVector.EMPTY, 0,
        0, "");
    Clock clock = Clock.fixed(Instant.ofEpochMilli(12_500), ZoneOffset.UTC);
    ViewCollector collector = new ViewCollector(() -> List.of(
        new ViewCollector.ViewSample("t", "a", committed, OptionalLong.empty()),
        new ViewCollector.ViewSample("t", "b", never, OptionalLong.empty())), clock);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, collector.collect());
    String text = out.toString(StandardCharsets.UTF_8);

    assertThat(text).contains("streamfold_view_last_commit_age_seconds{tenant=\"t\",view=\"a\"} 2.5")
        .doesNotContain("streamfold_view_last_commit_age_seconds{tenant=\"t\",view=\"b\"}");
  }

  @Test
  void aFailingSourceYieldsNoViewSamplesRatherThanAFailedScrape() throws IOException {
    ServerMetrics metrics = new ServerMetrics(() -> {
      throw new IllegalStateException("redis down");
    });
    // the view gauges go, so an alert on them goes quiet: streamfold_view_store_up says why
    assertThat(scrape(metrics)).doesNotContain("streamfold_view_events_applied{").contains("streamfold_view_store_up 0.0");
  }

  private static String scrape(ServerMetrics metrics) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
    return out.toString(StandardCharsets.UTF_8);
  }
}
