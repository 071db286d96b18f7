package dev.streamfold.e2e;

import static dev.streamfold.e2e.GrpcClients.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.JavaTransformation;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetValue;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.server.ServerOptions;
import dev.streamfold.server.StreamfoldServer;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 8's Java transformations end to end on the real server (Pulsar, Redis, Flink MiniCluster): the
 * examples module's jar uploaded over gRPC (its classes are not on this test's class path, so the server can
 * only have them from the jar), checked before anything starts, backfilled and tailed exactly as an
 * in-test fold of the same flights, replayed to a message ID, used as training-set features, and rebuilt by
 * a new server with an empty data directory from the jar kept in the ledger.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FoldIT {
  private static final String TENANT = Testkit.uniqueName("folds");
  private static final String STREAKS = "dev.streamfold.examples.LongestDelayStreak";
  private static final String LAST = "dev.streamfold.examples.LastDelays";
  private StreamfoldServer server;
  private ManagedChannel channel;
  private RedisClient redisClient;
  private StatefulRedisConnection<String, String> resp;
  /** The calls on the running server's channel (a new one after each {@code start}). */
  private final GrpcClients grpc = new GrpcClients(() -> channel, TENANT);

  private void start(Path dataDir) {
    String name = InProcessServerBuilder.generateName();
    server = new StreamfoldServer(ServerOptions.builder(dataDir, Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl(),
        Testkit.redis().uri()).defaultTenant(TENANT).checkpointInterval(Duration.ofMillis(300)).tenants(java.util.Set.of(TENANT))
        .build()).start(InProcessServerBuilder.forName(name));
    channel = InProcessChannelBuilder.forName(name).intercept(TestAuth.bearer(server.adminToken())).build();
    redisClient = RedisClient.create(TestAuth.respUri(TENANT, server.adminToken(), server.respPort()));
    resp = redisClient.connect();
  }

  @AfterEach
  void stop() {
    if (resp != null) {
      resp.close();
      redisClient.shutdown();
      resp = null;
    }
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private static byte[] examplesJar() throws IOException {
    String path = System.getProperty("streamfold.examples.jar");
    assertThat(path).as("system property streamfold.examples.jar (set by the build)").isNotBlank();
    return Files.readAllBytes(Path.of(path));
  }

  private static CreateTransformRequest fold(String name, byte[] jar, String className, String stream) {
    return CreateTransformRequest.newBuilder().setTenant(TENANT).setName(name).setFold(JavaTransformation.newBuilder()
        .setJar(ByteString.copyFrom(jar)).setClassName(className).setStream(stream)).build();
  }

  /** The oracle of LongestDelayStreak: route to {longest, current, flights, delayed}, in ledger order. */
  private static Map<String, long[]> streaks(List<Flights.Flight> flights) {
    Map<String, long[]> routes = new LinkedHashMap<>();
    for (Flights.Flight f : flights) {
      long[] r = routes.computeIfAbsent(f.origin() + "-" + f.destination(), k -> new long[4]);
      r[2]++;
      if (f.delay() >= 15) {
        r[3]++;
        r[1]++;
        r[0] = Math.max(r[0], r[1]);
      } else {
        r[1] = 0;
      }
    }
    return routes;
  }

  /** The oracle of LastDelays: origin to its last five delays as a JSON array text. */
  private static Map<String, String> lastDelays(List<Flights.Flight> flights) {
    Map<String, List<Integer>> last = new LinkedHashMap<>();
    for (Flights.Flight f : flights) {
      List<Integer> delays = last.computeIfAbsent(f.origin(), k -> new ArrayList<>());
      delays.add(f.delay());
      if (delays.size() > 5) {
        delays.remove(0);
      }
    }
    Map<String, String> json = new LinkedHashMap<>();
    last.forEach((origin, delays) -> json.put(origin, delays.toString().replace(" ", "")));
    return json;
  }

  /** Every row key of a view, by SCAN (the query-service has no KEYS). */
  private List<String> keys(String view) {
    List<String> keys = new ArrayList<>();
    io.lettuce.core.ScanIterator.scan(resp.sync(), io.lettuce.core.ScanArgs.Builder.matches(view + ":*").limit(500))
        .forEachRemaining(keys::add);
    return keys;
  }

  private void assertStreaks(String view, List<Flights.Flight> flights) {
    Map<String, long[]> oracle = streaks(flights);
    assertThat(keys(view)).hasSize(oracle.size());
    oracle.forEach((route, r) -> {
      Map<String, String> row = resp.sync().hgetall(view + ":" + route);
      assertThat(row).as(view + ":" + route).containsEntry("route", route)
          .containsEntry("longest_streak", Long.toString(r[0])).containsEntry("current_streak", Long.toString(r[1]))
          .containsEntry("flights", Long.toString(r[2])).containsEntry("delayed", Long.toString(r[3]));
    });
  }

  private void assertLastDelays(List<Flights.Flight> flights) {
    Map<String, String> oracle = lastDelays(flights);
    assertThat(keys("last_delays")).hasSize(oracle.size());
    oracle.forEach((origin, json) -> {
      assertThat(resp.sync().hget("last_delays:" + origin, "last_delays")).isEqualTo(json);
      assertThat(resp.sync().get("last_delays:" + origin)).contains("\"last_delays\":" + json);
    });
  }

  @Test
  void javaTransformationsBackfillTailReplayFeedTrainingSetsAndOutliveTheDataDirectory() throws IOException {
    start(Testkit.workDir().resolve("fold-server-1"));
    List<Flights.Flight> flights = Flights.load(3_000);
    grpc.createFlights("flights");
    List<String> ids = new ArrayList<>(grpc.appendFlights("flights", flights.subList(0, 2_000)));
    byte[] jar = examplesJar();
    assertThatThrownBy(() -> Class.forName(STREAKS)).as("the examples are not on the server's class path")
        .isInstanceOf(ClassNotFoundException.class);

    // Checked before anything is stored or started.
    assertStatus(() -> grpc.transforms().create(fold("bad", jar, "dev.streamfold.examples.Nope", "flights")),
        Status.Code.INVALID_ARGUMENT, "class dev.streamfold.examples.Nope is not in the jar");
    assertStatus(() -> grpc.transforms().create(fold("bad", "not a jar".getBytes(), STREAKS, "flights")),
        Status.Code.INVALID_ARGUMENT, "the jar given is not a jar (zip) file");
    assertStatus(() -> grpc.transforms().create(fold("bad", jar, STREAKS, "nope")), Status.Code.NOT_FOUND, "nope");
    assertStatus(() -> grpc.transforms().create(fold("bad", jar, STREAKS, "flights").toBuilder().setSql("SELECT 1").build()),
        Status.Code.INVALID_ARGUMENT, "either sql or fold");
    assertThat(grpc.transforms().list(ListTransformsRequest.newBuilder().setTenant(TENANT).build()).getTransformsList())
        .isEmpty();

    Transform created = grpc.transforms().create(fold("delay_streaks", jar, STREAKS, "flights"));
    assertThat(created.getFoldClass()).isEqualTo(STREAKS);
    assertThat(created.getJarSha256()).hasSize(64);
    assertThat(created.getKeyColumnsList()).containsExactly("route");
    assertThat(created.getColumnsList()).containsExactly("route", "longest_streak", "current_streak", "flights",
        "delayed");
    grpc.transforms().create(fold("last_delays", jar, LAST, "flights"));
    grpc.awaitLive("delay_streaks", 2_000);
    grpc.awaitLive("last_delays", 2_000);
    assertStreaks("delay_streaks", flights.subList(0, 2_000));
    assertLastDelays(flights.subList(0, 2_000));

    // Tail: the live view follows new events.
    ids.addAll(grpc.appendFlights("flights", flights.subList(2_000, 3_000)));
    grpc.awaitLive("delay_streaks", 3_000);
    grpc.awaitLive("last_delays", 3_000);
    assertStreaks("delay_streaks", flights);
    assertLastDelays(flights);

    // Replay to the 1,200th event: the fold of exactly that prefix.
    Iterator<ReplayProgress> progress = grpc.replays().replay(ReplayRequest.newBuilder().setTenant(TENANT)
        .setView("delay_streaks").setTo(ids.get(1_199)).build());
    ReplayProgress last = null;
    while (progress.hasNext()) {
      last = progress.next();
    }
    assertThat(last).isNotNull();
    assertThat(last.getState().getPhase()).as(last.getState().getError()).isEqualTo("COMPLETE");
    assertThat(last.getState().getSql()).startsWith("fold " + STREAKS + " (jar sha256:");
    assertStreaks("delay_streaks@" + ids.get(1_199), flights.subList(0, 1_200));

    // Training set: a label per flight, with fold features as of just before it.
    ExportTrainingSetRequest request = ExportTrainingSetRequest.newBuilder().setTenant(TENANT).setName("folds")
        .setLabelStream("flights").setEntity("origin").setLabel("delay >= 15")
        .addFeatures("last_delays.flights").addFeatures("streak=delay_streaks.current_streak@origin || '-' || destination")
        .setOut("it/folds.csv").setStreamRows(true).setCommand("FoldIT").build();
    List<TrainingSetRow> rows = new ArrayList<>();
    Iterator<ExportTrainingSetResponse> responses = grpc.replays().exportTrainingSet(request);
    while (responses.hasNext()) {
      ExportTrainingSetResponse r = responses.next();
      if (r.hasRows()) {
        rows.addAll(r.getRows().getRowsList());
      }
    }
    assertThat(rows).hasSize(3_000);
    Map<String, Long> originFlights = new HashMap<>();
    for (int i = 0; i < flights.size(); i++) {
      Flights.Flight f = flights.get(i);
      List<TrainingSetValue> row = rows.get(i).getValuesList();
      assertThat(row.get(4).hasInt64Value() ? (Long) row.get(4).getInt64Value() : null).as("row %d", i)
          .isEqualTo(originFlights.get(f.origin()));
      long[] before = streaks(flights.subList(0, i)).get(f.origin() + "-" + f.destination());
      assertThat(row.get(5).hasInt64Value() ? (Long) row.get(5).getInt64Value() : null).as("row %d streak", i)
          .isEqualTo(before == null ? null : before[1]);
      originFlights.merge(f.origin(), 1L, Long::sum);
    }

    // A new server with an empty data directory: the jar comes back from the ledger, the views are rebuilt.
    stop();
    start(Testkit.workDir().resolve("fold-server-2"));
    grpc.awaitLive("delay_streaks", 3_000);
    grpc.awaitLive("last_delays", 3_000);
    assertStreaks("delay_streaks", flights);
    assertLastDelays(flights);
  }
}
