package dev.streamfold.e2e;

import static dev.streamfold.e2e.GrpcClients.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.GetRowRequest;
import dev.streamfold.api.v1.GetRowResponse;
import dev.streamfold.api.v1.ListVirtualStatesRequest;
import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.ResumeRequest;
import dev.streamfold.api.v1.RollbackRequest;
import dev.streamfold.api.v1.UpdateTransformRequest;
import dev.streamfold.api.v1.ViewServiceGrpc;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import io.grpc.Status;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 5 end to end on the real server (Pulsar, Redis, Flink MiniCluster): replay to a message ID returned
 * by Append into a virtual state read over RESP ({@code view@id:key}, with lettuce) and gRPC
 * ({@code ViewService}), inclusive and exclusive stops, rollback and resume with read-your-writes, the errors
 * of each surface, and a transformation update swapped in while the old version serves.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ReplaySurfacesIT {
  private static final String TENANT = Testkit.uniqueName("replay");
  private static final String VIEW = "delays_by_origin";
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("replay-server"), TENANT, Duration.ofMillis(300));
  private static final GrpcClients GRPC = SERVER.clients();

  private static ViewServiceGrpc.ViewServiceBlockingStub viewReads() {
    return ViewServiceGrpc.newBlockingStub(SERVER.channel()).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  /** Replay and follow the progress stream to its end; returns every progress message. */
  private static List<ReplayProgress> replay(ReplayRequest.Builder request) {
    List<ReplayProgress> progress = new ArrayList<>();
    Iterator<ReplayProgress> stream = GRPC.replays().replay(request.setTenant(TENANT).setView(VIEW).build());
    stream.forEachRemaining(progress::add);
    return progress;
  }

  /** A view command of the query-service (VIEW.INFO, VIEW.WAIT) over RESP with lettuce. */
  private static List<Object> command(String name, String... args) {
    CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
    for (String arg : args) {
      commandArgs.add(arg);
    }
    return SERVER.resp().sync().dispatch(ViewCommands.keyword(name), new NestedMultiOutput<>(StringCodec.UTF8), commandArgs);
  }

  private static Map<String, Object> info(String name) {
    List<Object> flat = command("VIEW.INFO", name);
    Map<String, Object> info = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      info.put(String.valueOf(flat.get(i)), flat.get(i + 1));
    }
    return info;
  }

  private static void assertRowsEqualOracle(String name, List<Flights.Flight> flights) {
    RedisCommands<String, String> redis = SERVER.resp().sync();
    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    for (Map.Entry<String, Flights.Delays> expected : oracle.entrySet()) {
      Map<String, String> row = redis.hgetall(name + ":" + expected.getKey());
      assertThat(Long.parseLong(row.get("flights"))).as(name + ":" + expected.getKey()).isEqualTo(expected.getValue().flights());
      assertThat(Long.parseLong(row.get("delayed"))).as(name + ":" + expected.getKey()).isEqualTo(expected.getValue().delayed());
      assertThat(Double.parseDouble(row.get("avg_delay"))).isCloseTo(expected.getValue().avgDelay(), within(1e-9));
    }
  }

  @Test
  void replayRollbackResumeAndUpdateThroughEverySurface() {
    List<Flights.Flight> flights = Flights.load(3_001);
    GRPC.createFlights("flights");
    List<String> ids = new ArrayList<>(GRPC.appendFlights("flights", flights.subList(0, 1_000)));
    ids.addAll(GRPC.appendFlights("flights", flights.subList(1_000, 2_000)));
    GRPC.transforms().create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName(VIEW)
        .setSql(Flights.DELAYS_BY_ORIGIN_SQL).build());
    GRPC.awaitView(VIEW, Duration.ofMinutes(2), s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == 2_000);

    // Replay --to the 1,000th message ID Append returned: the default name is the position form.
    String stop = ids.get(999);
    List<ReplayProgress> progress = replay(ReplayRequest.newBuilder().setTo(stop));
    VirtualState state = progress.get(progress.size() - 1).getState();
    String name = VIEW + "@" + stop;
    assertThat(state.getName()).isEqualTo(name);
    assertThat(state.getPhase()).isEqualTo("COMPLETE");
    assertThat(state.getEventsApplied()).isEqualTo(1_000);
    assertThat(state.getTargetEvents()).isEqualTo(1_000);
    assertThat(state.getPositionList()).containsExactly(stop);
    assertThat(state.getFullHistory()).isTrue();
    assertThat(state.getSourceView()).isEqualTo(VIEW);
    assertThat(progress).allSatisfy(p -> assertThat(p.getState().getPhase()).isIn("STARTING", "BACKFILLING", "COMPLETE"));

    // RESP: view@id:key, exactly the fold of the first 1,000 events
    assertRowsEqualOracle(name, flights.subList(0, 1_000));
    String key = flights.get(999).origin();
    Map<String, Object> stateInfo = info(name);
    assertThat(stateInfo).containsEntry("kind", "virtual").containsEntry("source_view", VIEW)
        .containsEntry("full_history", 1L).containsEntry("phase", "COMPLETE").containsEntry("stop", "to " + stop)
        .containsEntry("position", List.of(stop));

    assertThat(command("VIEW.LIST").toString()).contains(name + ", kind, virtual").contains(VIEW + ", kind, view");

    // gRPC ViewService: the same row, with the position it reflects
    GetRowResponse row = viewReads().getRow(GetRowRequest.newBuilder().setTenant(TENANT).setView(name).setKey(key).build());
    assertThat(row.getFound()).isTrue();
    assertThat(row.getRowMap()).isEqualTo(SERVER.resp().sync().hgetall(name + ":" + key));
    assertThat(row.getPositionList()).containsExactly(stop);
    assertThat(row.getReadFrom()).isEqualTo(name);
    assertThat(row.getPhase()).isEqualTo("COMPLETE");

    // --before the same message ID applies exactly one event less
    VirtualState before = replay(ReplayRequest.newBuilder().setTo(stop).setBefore(true).setAs("before_1000"))
        .stream().reduce((a, b) -> b).orElseThrow().getState();
    assertThat(before.getEventsApplied()).isEqualTo(999);
    assertThat(before.getPositionList()).containsExactly(ids.get(998));
    assertRowsEqualOracle("before_1000", flights.subList(0, 999));

    // Errors: a message ID not in the stream, an unknown view, a taken name, a missing stop
    assertStatus(() -> replay(ReplayRequest.newBuilder().setTo("999999:0:-1:-1")), Status.Code.INVALID_ARGUMENT,
        "is not in stream");
    assertStatus(() -> GRPC.replays().replay(ReplayRequest.newBuilder().setTenant(TENANT).setView("nope").setTo("latest")
        .build()).hasNext(), Status.Code.NOT_FOUND, "transformation 'nope' does not exist");
    assertStatus(() -> replay(ReplayRequest.newBuilder().setTo(stop)), Status.Code.ALREADY_EXISTS, name);
    assertStatus(() -> replay(ReplayRequest.newBuilder()), Status.Code.INVALID_ARGUMENT, "field 'to' is required");

    // Rollback: reads of the view return the state; VIEW.WAIT refuses; the live job keeps going underneath
    GRPC.replays().rollback(RollbackRequest.newBuilder().setTenant(TENANT).setView(VIEW).setState(name).build());
    assertThat(SERVER.resp().sync().hgetall(VIEW + ":" + key)).isEqualTo(SERVER.resp().sync().hgetall(name + ":" + key));
    assertThat(info(VIEW)).containsEntry("rolled_back_to", name).containsEntry("position", List.of(stop));
    assertThat(GRPC.status(VIEW).getRolledBackTo()).isEqualTo(name);
    List<String> more = GRPC.appendFlights("flights", flights.subList(2_000, 3_001));
    String last = more.get(more.size() - 1);
    assertThatThrownBy(() -> command("VIEW.WAIT", VIEW, last, "100")).isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining("is rolled back to virtual state '" + name + "'");
    assertStatus(() -> viewReads().getRow(GetRowRequest.newBuilder().setTenant(TENANT).setView(VIEW).setKey(key)
        .setWaitForMessageId(last).setWaitTimeoutMs(100).build()), Status.Code.FAILED_PRECONDITION, "resume the view first");
    GetRowResponse rolledBack = viewReads().getRow(GetRowRequest.newBuilder().setTenant(TENANT).setView(VIEW).setKey(key).build());
    assertThat(rolledBack.getRolledBackTo()).isEqualTo(name);
    assertThat(rolledBack.getPositionList()).containsExactly(stop);
    assertStatus(() -> GRPC.replays().dropVirtualState(VirtualStateRequest.newBuilder().setTenant(TENANT).setName(name).build()),
        Status.Code.FAILED_PRECONDITION, "resume first");
    assertStatus(() -> GRPC.replays().rollback(RollbackRequest.newBuilder().setTenant(TENANT).setView(VIEW)
        .setState("nope").build()), Status.Code.NOT_FOUND, "virtual state 'nope' does not exist");

    // Resume: instant, and read-your-writes for the events appended while rolled back
    assertThat(GRPC.replays().resume(ResumeRequest.newBuilder().setTenant(TENANT).setView(VIEW).build()).getResumed()).isTrue();
    GetRowResponse live = viewReads().getRow(GetRowRequest.newBuilder().setTenant(TENANT).setView(VIEW).setKey(key)
        .setWaitForMessageId(last).setWaitTimeoutMs(30_000).build());
    assertThat(live.getRolledBackTo()).isEmpty();
    assertThat(live.getPositionList()).containsExactly(last);
    assertThat(Long.parseLong(live.getRowMap().get("flights"))).isEqualTo(Flights.delaysByOrigin(flights).get(key).flights());
    assertThat(command("VIEW.WAIT", VIEW, last, "0")).containsExactly(1L);
    assertThat(SERVER.resp().sync().hgetall(VIEW + ":" + key).get("flights")).isEqualTo(live.getRowMap().get("flights"));
    assertStatus(() -> viewReads().getRow(GetRowRequest.newBuilder().setTenant(TENANT).setView(VIEW).setKey(key)
        .setWaitForMessageId("999999:0:-1:-1").setWaitTimeoutMs(50).build()), Status.Code.DEADLINE_EXCEEDED, "did not apply");

    // Virtual states: listed with positions; dropped
    assertThat(GRPC.replays().listVirtualStates(ListVirtualStatesRequest.newBuilder().setTenant(TENANT).build()).getStatesList())
        .extracting(VirtualState::getName).containsExactlyInAnyOrder(name, "before_1000");
    GRPC.replays().dropVirtualState(VirtualStateRequest.newBuilder().setTenant(TENANT).setName("before_1000").build());
    assertThat(SERVER.resp().sync().hgetall("before_1000:" + key)).isEmpty();
    assertStatus(() -> GRPC.replays().getVirtualState(VirtualStateRequest.newBuilder().setTenant(TENANT).setName("before_1000")
        .build()), Status.Code.NOT_FOUND, "before_1000");

    // Update: an invalid one changes nothing; a valid one backfills beside v1 and is swapped in once LIVE
    assertStatus(() -> GRPC.transforms().update(UpdateTransformRequest.newBuilder().setTenant(TENANT).setName(VIEW)
        .setSql("SELECT origin, COUNT(*) AS flights FROM flights GROUP BY nope").build()), Status.Code.INVALID_ARGUMENT, "nope");
    assertThat(GRPC.status(VIEW).hasUpdate()).isFalse();
    int v2 = GRPC.transforms().update(UpdateTransformRequest.newBuilder().setTenant(TENANT).setName(VIEW)
        .setSql("SELECT origin, COUNT(*) AS flights, MAX(distance) AS max_distance FROM flights GROUP BY origin")
        .build()).getVersion();
    assertThat(v2).isGreaterThan(1);
    Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
      ViewStatus s = GRPC.status(VIEW);
      assertThat(s.getUpdate().getError()).isEmpty();
      if (s.getServedVersion() >= v2) {
        // once served, the status reports the served version, not the old one with a pending update
        assertThat(s.getVersion()).isEqualTo(v2);
        assertThat(s.hasUpdate()).isFalse();
        return true;
      }
      return false;
    });
    Map<String, String> updated = SERVER.resp().sync().hgetall(VIEW + ":" + key);
    assertThat(updated).containsOnlyKeys("origin", "flights", "max_distance");
    assertThat(Long.parseLong(updated.get("flights"))).isEqualTo(Flights.delaysByOrigin(flights).get(key).flights());
    assertThat(Long.parseLong(updated.get("max_distance"))).isEqualTo(flights.stream().filter(f -> f.origin().equals(key))
        .mapToLong(Flights.Flight::distance).max().orElseThrow());
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !GRPC.status(VIEW).hasUpdate() && GRPC.status(VIEW).getVersion() == v2);
  }
}
