package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.resp.RawRespClient;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server's {@code /metrics} endpoint, scraped over HTTP after known traffic: exact ingest, gRPC and RESP
 * counters, a view's progress gauges, and the text exposition format line by line.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MetricsIT {
  private static final String TENANT = Testkit.uniqueName("metrics");
  private static final int EVENTS = 600;
  private static final String VIEW = "delays_by_origin";
  /** A sample line of the text format 0.0.4: name, optional labels, value, optional timestamp. */
  private static final Pattern SAMPLE = Pattern.compile(
      "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\",?)*\\})? "
          + "(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|\\+Inf|-Inf)(?: -?[0-9]+)?");
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("metrics-server"), TENANT, Duration.ofMillis(500)).withMetrics();
  private static final GrpcClients GRPC = SERVER.clients();
  private static ManagedChannel wrongToken;

  @BeforeAll
  static void start() {
    wrongToken = SERVER.newChannel()
        .intercept(TestAuth.bearer("sf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).build();
  }

  @AfterAll
  static void stop() {
    if (wrongToken != null) {
      wrongToken.shutdownNow();
    }
  }

  @Test
  void countsIngestGrpcRespAndViewProgress() throws Exception {
    assertThat(SERVER.server().metricsPort()).isPositive();
    GRPC.createFlights("flights");
    List<Flights.Flight> flights = Flights.load(EVENTS);
    for (int from = 0; from < EVENTS; from += EVENTS / 2) { // two requests
      GRPC.appendFlights("flights", flights.subList(from, from + EVENTS / 2));
    }
    IngestServiceGrpc.IngestServiceBlockingStub ingest = IngestServiceGrpc.newBlockingStub(SERVER.channel());
    // one request over the limit of events per request: INVALID_ARGUMENT, nothing appended
    AppendRequest.Builder tooMany = AppendRequest.newBuilder().setTenant(TENANT).setStream("flights");
    for (int i = 0; i <= dev.streamfold.ledger.grpc.IngestGrpcService.MAX_EVENTS_PER_REQUEST; i++) {
      tooMany.addEvents(Event.newBuilder().setKey("k"));
    }
    assertThatThrownBy(() -> ingest.append(tooMany.build())).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    // one call with a token nobody issued: UNAUTHENTICATED, refused by the auth interceptor
    assertThatThrownBy(() -> StreamAdminGrpc.newBlockingStub(wrongToken).listStreams(
        ListStreamsRequest.newBuilder().setTenant(TENANT).build())).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));

    TransformServiceGrpc.newBlockingStub(SERVER.channel()).create(CreateTransformRequest.newBuilder()
        .setTenant(TENANT).setName(VIEW).setSql(Flights.DELAYS_BY_ORIGIN_SQL).build());
    GRPC.awaitLive(VIEW, EVENTS);

    List<String> origins = new TreeSet<>(flights.stream().map(Flights.Flight::origin).toList()).stream().limit(3).toList();
    try (RawRespClient resp = new RawRespClient(SERVER.server().respPort())) {
      assertThat(resp.call("GET", VIEW + ":" + origins.get(0))).startsWith("-NOAUTH");
      assertThat(resp.call("AUTH", TENANT, "sf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).startsWith("-WRONGPASS");
      assertThat(resp.call("AUTH", TENANT, SERVER.server().adminToken())).startsWith("+OK");
      for (String origin : origins) {
        assertThat(resp.call("HGETALL", VIEW + ":" + origin)).contains("flights");
      }
      assertThat(resp.call("VIEW.INFO", VIEW)).contains("LIVE");
      assertThat(resp.call("NOSUCHCOMMAND", "x")).startsWith("-ERR unknown command");
    }

    // the view's lag is computed at scrape time: 0 once the job has committed every event
    Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
        assertThat(samples(scrape())).containsEntry(
            "streamfold_view_lag_events{tenant=\"" + TENANT + "\",view=\"" + VIEW + "\"}", 0.0));
    String text = scrape();
    Map<String, Double> samples = samples(text);
    String view = "{tenant=\"" + TENANT + "\",view=\"" + VIEW + "\"}";
    assertThat(samples)
        .containsEntry("streamfold_ingest_events_appended_total{stream=\"flights\",tenant=\"" + TENANT + "\"}",
            (double) EVENTS)
        .containsEntry("streamfold_ingest_append_duration_seconds_count{outcome=\"appended\"}", 2.0)
        .containsEntry("streamfold_ingest_refused_requests_total{code=\"INVALID_ARGUMENT\",tenant=\"" + TENANT + "\"}",
            1.0)
        .containsEntry("streamfold_grpc_server_calls_total{code=\"OK\",method=\"Append\",service=\""
            + IngestServiceGrpc.SERVICE_NAME + "\"}", 2.0)
        .containsEntry("streamfold_grpc_server_calls_total{code=\"INVALID_ARGUMENT\",method=\"Append\",service=\""
            + IngestServiceGrpc.SERVICE_NAME + "\"}", 1.0)
        .containsEntry("streamfold_grpc_server_calls_total{code=\"UNAUTHENTICATED\",method=\"ListStreams\",service=\""
            + StreamAdminGrpc.SERVICE_NAME + "\"}", 1.0)
        .containsEntry("streamfold_resp_commands_total{command=\"HGETALL\"}", 3.0)
        .containsEntry("streamfold_resp_commands_total{command=\"AUTH\"}", 2.0)
        .containsEntry("streamfold_resp_commands_total{command=\"GET\"}", 1.0)
        .containsEntry("streamfold_resp_commands_total{command=\"VIEW.INFO\"}", 1.0)
        .containsEntry("streamfold_resp_commands_total{command=\"OTHER\"}", 1.0)
        .containsEntry("streamfold_resp_command_duration_seconds_count{command=\"HGETALL\"}", 3.0)
        .containsEntry("streamfold_resp_errors_total{command=\"GET\",kind=\"NOAUTH\"}", 1.0)
        .containsEntry("streamfold_resp_errors_total{command=\"AUTH\",kind=\"WRONGPASS\"}", 1.0)
        .containsEntry("streamfold_resp_errors_total{command=\"OTHER\",kind=\"ERR\"}", 1.0)
        .containsEntry("streamfold_view_events_applied" + view, (double) EVENTS)
        .containsEntry("streamfold_view_backfill_target_events" + view, (double) EVENTS)
        .containsEntry("streamfold_view_lag_events" + view, 0.0)
        .containsEntry("streamfold_view_phase{phase=\"LIVE\",tenant=\"" + TENANT + "\",view=\"" + VIEW + "\"}", 1.0)
        .containsEntry("streamfold_view_phase{phase=\"BACKFILLING\",tenant=\"" + TENANT + "\",view=\"" + VIEW + "\"}", 0.0)
        .containsKey("streamfold_view_last_commit_age_seconds" + view)
        // the Prometheus Java client's JVM and process metrics of the server's JVM
        .containsKeys("jvm_memory_used_bytes{area=\"heap\"}", "jvm_memory_used_bytes{area=\"nonheap\"}",
            "jvm_threads_current", "process_cpu_seconds_total");
    assertThat(samples.get("jvm_memory_used_bytes{area=\"heap\"}")).as("heap in use, bytes").isPositive();
    assertThat(samples).doesNotContainKey("streamfold_resp_errors_total{command=\"HGETALL\",kind=\"ERR\"}");
    assertThat(text).doesNotContain(SERVER.server().adminToken());
  }

  /** GET /metrics over HTTP, as Prometheus does. */
  private static String scrape() throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + SERVER.server().metricsPort() + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    return response.body();
  }

  /**
   * Parse the text exposition format: every line is a {@code # HELP}/{@code # TYPE} comment or a sample
   * {@code name{labels} value}.
   *
   * @return sample (name with its labels as written) to value
   */
  private static Map<String, Double> samples(String text) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      assertThat(m.matches()).as("exposition line: %s", line).isTrue();
      assertThat(samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(
          m.group(3).replace("+Inf", "Infinity").replace("-Inf", "-Infinity")))).as("duplicate sample %s", line).isNull();
    }
    return samples;
  }
}
