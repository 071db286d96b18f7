package dev.streamfold.e2e;

import static dev.streamfold.e2e.GrpcClients.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.api.v1.ClockTick;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.GetTrainingSetRequest;
import dev.streamfold.api.v1.ListTicksRequest;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetHeader;
import dev.streamfold.api.v1.TrainingSetPlan;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetValue;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 6 over gRPC on the real server (Pulsar, Redis, Flink MiniCluster): {@code ExportTrainingSet} with
 * streamed progress and rows, checked row by row against an oracle folded in ledger order, and a
 * validation error; and issue 5's read-your-writes over RESP: {@code VIEW.WAIT} right after an Append
 * returns once {@code HGET} reflects the event, and times out (0) once the view's job is stopped.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingSetSurfacesIT {
  private static final String TENANT = Testkit.uniqueName("tsets");
  private static final String ROUTE_SQL = "SELECT route, COUNT(*) AS flights, AVG(CAST(delay AS DOUBLE)) AS avg_delay"
      + " FROM (SELECT origin || '>' || destination AS route, delay FROM flights) GROUP BY route";
  private static final Path DATA_DIR = Testkit.workDir().resolve("training-set-server");
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      DATA_DIR, TENANT, Duration.ofMillis(300));
  private static final GrpcClients GRPC = SERVER.clients();

  /** VIEW.WAIT over RESP with lettuce: 1 when reached, 0 on timeout. */
  private static long viewWait(String view, String messageId, long timeoutMs) {
    return ViewCommands.viewWait(SERVER.resp(), view, messageId, timeoutMs);
  }

  private static Object value(TrainingSetValue v) {
    return switch (v.getKindCase()) {
      case IS_NULL, KIND_NOT_SET -> null;
      case STRING_VALUE -> v.getStringValue();
      case INT64_VALUE -> v.getInt64Value();
      case DOUBLE_VALUE -> v.getDoubleValue();
      case BOOL_VALUE -> v.getBoolValue();
    };
  }

  @Test
  void exportTrainingSetStreamsRowsEqualToALedgerOrderOracleThenReadYourWritesOverResp() throws Exception {
    List<Flights.Flight> flights = Flights.load(3_000);
    GRPC.createFlights("flights");
    List<String> ids = new ArrayList<>();
    for (int from = 0; from < flights.size(); from += 1_000) {
      ids.addAll(GRPC.appendFlights("flights", flights.subList(from, from + 1_000)));
    }
    GRPC.transforms().create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("delays_by_origin")
        .setSql(Flights.DELAYS_BY_ORIGIN_SQL).build());
    GRPC.transforms().create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("delays_by_route")
        .setSql(ROUTE_SQL).build());

    // Validation errors name the field, before anything runs.
    ExportTrainingSetRequest.Builder request = ExportTrainingSetRequest.newBuilder().setTenant(TENANT).setName("delayed")
        .setLabelStream("flights").setEntity("origin").setLabel("delay >= 15")
        .addFeatures("delays_by_origin.flights").addFeatures("delays_by_origin.avg_delay")
        .addFeatures("route_flights=delays_by_route.flights@origin || '>' || destination")
        .setOut("it/delayed.parquet").setStreamRows(true).setCommand("TrainingSetSurfacesIT");
    assertStatus(() -> GRPC.replays().exportTrainingSet(request.clone().addFeatures("delays_by_origin.nope").build()).hasNext(),
        Status.Code.INVALID_ARGUMENT, "has no column 'nope'");
    assertStatus(() -> GRPC.replays().exportTrainingSet(request.clone().clearLabel().build()).hasNext(),
        Status.Code.INVALID_ARGUMENT, "field 'label' is required");

    // A dry run validates as a build does and answers with the plan; it writes nothing.
    assertStatus(() -> GRPC.replays().exportTrainingSet(request.clone().setDryRun(true).addFeatures("delays_by_origin.nope")
        .build()).hasNext(), Status.Code.INVALID_ARGUMENT, "has no column 'nope'");
    List<ExportTrainingSetResponse> planned = new ArrayList<>();
    GRPC.replays().exportTrainingSet(request.clone().setDryRun(true).setOut("it/planned.parquet").build())
        .forEachRemaining(planned::add);
    assertThat(planned).singleElement().satisfies(r -> assertThat(r.hasPlan()).isTrue());
    TrainingSetPlan plan = planned.get(0).getPlan();
    assertThat(plan.getLabelStream()).isEqualTo("flights");
    assertThat(plan.getStop()).isEqualTo("to latest");
    assertThat(plan.getWhere()).as("every event").isEmpty();
    assertThat(plan.getReadThrough()).isEqualTo(ids.get(2_999));
    assertThat(plan.getTargetEvents()).isEqualTo(3_000);
    assertThat(plan.getTargetEventsExact()).isTrue();
    assertThat(plan.getFeaturesList()).extracting(f -> f.getName() + " " + f.getView() + "@" + f.getViewVersion() + " "
        + f.getStreamsList() + " " + f.getColumn() + " " + f.getType() + " key " + f.getJoin() + " ttl " + f.getTtlMs())
        .containsExactly("delays_by_origin__flights delays_by_origin@1 [flights] flights BIGINT key origin ttl -1",
            "delays_by_origin__avg_delay delays_by_origin@1 [flights] avg_delay DOUBLE key origin ttl -1",
            "route_flights delays_by_route@1 [flights] flights BIGINT key origin || '>' || destination ttl -1");
    Path plannedOutput = DATA_DIR.toAbsolutePath().resolve("training-sets/it/planned.parquet");
    assertThat(plan.getOutput()).isEqualTo(plannedOutput.toString());
    assertThat(plan.getFormat()).isEqualTo("parquet");
    assertThat(plannedOutput).doesNotExist();
    assertThat(Path.of(plan.getManifest())).doesNotExist();

    // A stop at a tick of the tenant clock is the label stream's position at that tick (one instant for a training
    // set and every view); a tick not recorded yet is refused.
    ClockTick first = GRPC.admin().listTicks(ListTicksRequest.newBuilder().setTenant(TENANT).setMaxTicks(1).build())
        .getTicks(0);
    String atFirst = first.getStreamsList().stream().filter(p -> p.getStream().equals("flights")).findFirst()
        .orElseThrow().getMessageIds(0);
    List<ExportTrainingSetResponse> atTick = new ArrayList<>();
    GRPC.replays().exportTrainingSet(request.clone().setDryRun(true).setTo("tick:" + first.getNumber()).build())
        .forEachRemaining(atTick::add);
    assertThat(atTick.get(0).getPlan().getReadThrough()).isEqualTo(atFirst);
    assertThat(atTick.get(0).getPlan().getTargetEvents()).isEqualTo(ids.indexOf(atFirst) + 1L);
    assertStatus(() -> GRPC.replays().exportTrainingSet(request.clone().setDryRun(true).setTo("tick:99999999").build())
        .hasNext(), Status.Code.INVALID_ARGUMENT, "--to tick:99999999: the tenant clock of '" + TENANT + "' has no tick");

    List<TrainingSetProgress> progress = new ArrayList<>();
    TrainingSetHeader header = null;
    List<TrainingSetRow> rows = new ArrayList<>();
    TrainingSetDone done = null;
    Iterator<ExportTrainingSetResponse> responses = GRPC.replays().exportTrainingSet(request.build());
    while (responses.hasNext()) {
      ExportTrainingSetResponse r = responses.next();
      switch (r.getKindCase()) {
        case PROGRESS -> progress.add(r.getProgress());
        case HEADER -> header = r.getHeader();
        case ROWS -> rows.addAll(r.getRows().getRowsList());
        case DONE -> done = r.getDone();
        default -> throw new AssertionError("unexpected message " + r);
      }
    }
    assertThat(progress).isNotEmpty().allSatisfy(p -> assertThat(p.getPhase()).isIn("RUNNING", "COMPLETE"));
    assertThat(progress.get(progress.size() - 1).getPhase()).isEqualTo("COMPLETE");
    assertThat(progress.get(0).getTargetEvents()).isEqualTo(3_000);
    assertThat(header).isNotNull();
    assertThat(header.getColumnsList()).containsExactly("message_id", "event_time", "entity", "label",
        "delays_by_origin__flights", "delays_by_origin__avg_delay", "route_flights");
    assertThat(header.getTypesList()).containsExactly("STRING", "TIMESTAMP", "STRING", "BOOLEAN", "BIGINT", "DOUBLE",
        "BIGINT");
    assertThat(plan.getHeader()).as("the plan's columns are the build's").isEqualTo(header);
    assertThat(done).isNotNull();
    assertThat(done.getRows()).isEqualTo(3_000);
    assertThat(done.getEventsRead()).isEqualTo(3_000);
    assertThat(done.getRowsStreamed()).isEqualTo(3_000);
    assertThat(done.getStopMessageId()).isEqualTo(ids.get(2_999));
    assertThat(Path.of(done.getOutput())).isEqualTo(DATA_DIR.toAbsolutePath().resolve("training-sets/it/delayed.parquet"))
        .isRegularFile();
    assertThat(Files.readString(Path.of(done.getManifest()))).contains("\"command\" : \"TrainingSetSurfacesIT\"")
        .contains(ids.get(2_999));

    // The oracle, folded in ledger order: every feature as it was just before the label event.
    Map<String, long[]> origin = new HashMap<>(); // flights, total delay
    Map<String, Long> route = new HashMap<>();
    assertThat(rows).hasSize(3_000);
    for (int i = 0; i < flights.size(); i++) {
      Flights.Flight f = flights.get(i);
      List<Object> row = rows.get(i).getValuesList().stream().map(TrainingSetSurfacesIT::value).toList();
      assertThat(row.get(0)).isEqualTo(ids.get(i));
      assertThat(row.get(1)).isEqualTo(f.eventTimeMs());
      assertThat(row.get(2)).isEqualTo(f.origin());
      assertThat(row.get(3)).isEqualTo(f.delay() >= 15);
      long[] before = origin.get(f.origin());
      if (before == null) {
        assertThat(row.get(4)).as("row %d: no earlier %s flight: null, never 0", i, f.origin()).isNull();
        assertThat(row.get(5)).as("row %d", i).isNull();
      } else {
        assertThat(row.get(4)).as("row %d flights so far", i).isEqualTo(before[0]);
        assertThat((Double) row.get(5)).as("row %d avg delay so far", i).isCloseTo((double) before[1] / before[0], within(1e-9));
      }
      assertThat(row.get(6)).as("row %d route flights so far", i).isEqualTo(route.get(f.origin() + ">" + f.destination()));
      origin.computeIfAbsent(f.origin(), k -> new long[2])[0]++;
      origin.get(f.origin())[1] += f.delay();
      route.merge(f.origin() + ">" + f.destination(), 1L, Long::sum);
    }
    TrainingSetProgress status = GRPC.replays().getTrainingSet(GetTrainingSetRequest.newBuilder().setTenant(TENANT)
        .setName("delayed").build());
    assertThat(status.getPhase()).isEqualTo("COMPLETE");
    assertThat(status.getRows()).isEqualTo(3_000);
    assertStatus(() -> GRPC.replays().getTrainingSet(GetTrainingSetRequest.newBuilder().setTenant(TENANT).setName("nope")
        .build()), Status.Code.NOT_FOUND, "no training set 'nope'");

    // Read-your-writes (issue 5): VIEW.WAIT right after an Append returns once HGET reflects the event.
    GRPC.awaitView("delays_by_origin", Duration.ofMinutes(1), s -> s.getPhase().equals("LIVE"));
    Flights.Flight next = flights.get(0);
    String appended = GRPC.appendFlights("flights", List.of(next)).get(0);
    assertThat(viewWait("delays_by_origin", appended, 30_000)).isEqualTo(1);
    long expected = origin.get(next.origin())[0] + 1;
    assertThat(SERVER.resp().sync().hget("delays_by_origin:" + next.origin(), "flights")).isEqualTo(Long.toString(expected));

    // With the view's job stopped, a wait for a new event times out: 0 after the timeout, and reads unchanged.
    SERVER.server().transforms().close();
    String unseen = GRPC.appendFlights("flights", List.of(next)).get(0);
    long startedNanos = System.nanoTime();
    assertThat(viewWait("delays_by_origin", unseen, 50)).isZero();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos)).isGreaterThanOrEqualTo(50);
    assertThat(viewWait("delays_by_origin", appended, 0)).as("an applied event is still reached at once").isEqualTo(1);
    assertThat(SERVER.resp().sync().hget("delays_by_origin:" + next.origin(), "flights")).isEqualTo(Long.toString(expected));
  }
}
