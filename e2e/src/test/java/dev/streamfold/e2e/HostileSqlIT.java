package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.UpdateTransformRequest;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.testkit.Testkit;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A counted corpus of hostile SQL and training-set expressions, sent to the whole server over gRPC (real
 * Pulsar, Flink and Redis): each entry must get its status and a message that says what is wrong, and
 * after each the tenant's transformations, a view's row and its position are exactly as they were, and
 * the server still serves. The entries are the refusals a user meets and the ways around each rule that
 * a planner-level test ({@code PlanRuleBypassTest}) covers in more forms.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostileSqlIT {
  private static final String TENANT = Testkit.uniqueName("hostilesql");
  private static final String NOT_DETERMINISTIC = "is not deterministic";
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("server-hostile-sql"), TENANT, Duration.ofMillis(500)).overTcp()
      .channelOptions(channel -> channel.maxInboundMessageSize(8 << 20));

  /** One hostile input: how it is sent, the status it must get, what its message must say. */
  record Entry(String what, Function<ManagedChannel, Object> call, Status.Code code, String... fragments) {}

  @BeforeAll
  static void start() {
    for (String stream : List.of("flights", "other")) {
      StreamAdminGrpc.newBlockingStub(SERVER.channel()).createStream(CreateStreamRequest.newBuilder().setTenant(TENANT)
          .setName(stream).addColumns(Column.newBuilder().setName("delay").setType("INT"))
          .addColumns(Column.newBuilder().setName("origin").setType("STRING"))
          .addColumns(Column.newBuilder().setName("destination").setType("STRING")).build());
    }
    AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream("flights");
    for (int i = 0; i < 12; i++) {
      request.addEvents(Event.newBuilder().setKey("k" + i).setEventTimeMs(1_000_000L + i * 60_000L)
          .setPayloadJson("{\"delay\":" + i + ",\"origin\":\"" + (i % 2 == 0 ? "ATL" : "SFO")
              + "\",\"destination\":\"ORD\"}"));
    }
    IngestServiceGrpc.newBlockingStub(SERVER.channel()).withDeadlineAfter(2, TimeUnit.MINUTES).append(request.build());
    transforms().create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("by_origin")
        .setSql("SELECT origin, COUNT(*) AS n, SUM(delay) AS total FROM flights GROUP BY origin").build());
    SERVER.clients().awaitLive("by_origin", 12);
  }


  private static TransformServiceGrpc.TransformServiceBlockingStub transforms() {
    return TransformServiceGrpc.newBlockingStub(SERVER.channel()).withDeadlineAfter(2, TimeUnit.MINUTES);
  }

  private static Entry create(String what, String sql, Status.Code code, String... fragments) {
    return new Entry(what, c -> TransformServiceGrpc.newBlockingStub(c).withDeadlineAfter(2, TimeUnit.MINUTES)
        .create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("hostile").setSql(sql).build()),
        code, fragments);
  }

  private static Entry update(String what, String sql, Status.Code code, String... fragments) {
    return new Entry("update: " + what, c -> TransformServiceGrpc.newBlockingStub(c).withDeadlineAfter(2, TimeUnit.MINUTES)
        .update(UpdateTransformRequest.newBuilder().setTenant(TENANT).setName("by_origin").setSql(sql).build()),
        code, fragments);
  }

  private static Entry trainingSet(String what, Function<ExportTrainingSetRequest.Builder, ExportTrainingSetRequest.Builder> change,
      String... fragments) {
    return trainingSet(what, change, Status.Code.INVALID_ARGUMENT, fragments);
  }

  private static Entry trainingSet(String what, Function<ExportTrainingSetRequest.Builder, ExportTrainingSetRequest.Builder> change,
      Status.Code code, String... fragments) {
    return new Entry("training set: " + what, c -> ReplayServiceGrpc.newBlockingStub(c).withDeadlineAfter(2, TimeUnit.MINUTES)
        .exportTrainingSet(change.apply(ExportTrainingSetRequest.newBuilder().setTenant(TENANT).setName("hostile")
            .setLabelStream("flights").setEntity("origin").setLabel("delay > 5").addFeatures("by_origin.n")
            .setOut("hostile/set.parquet").setStreamRows(true)).build()).hasNext(),
        code, fragments);
  }

  static List<Entry> corpus() {
    Status.Code invalid = Status.Code.INVALID_ARGUMENT;
    List<Entry> corpus = new ArrayList<>();
    String group = " FROM flights GROUP BY origin";
    // the wall clock, chance and processing time, however written
    for (String call : List.of("NOW()", "now()", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE", "LOCALTIME",
        "CURRENT_ROW_TIMESTAMP()", "UNIX_TIMESTAMP()", "RAND()", "RAND_INTEGER(10)", "UUID()", "PROCTIME()",
        "RAND/**/()", "CAST(NOW() AS STRING)", "CASE WHEN delay > 0 THEN RAND() ELSE 0 END")) {
      corpus.add(create(call, "SELECT origin, MAX(" + call + ") AS m" + group, invalid, NOT_DETERMINISTIC, "_event_time"));
    }
    corpus.add(create("a clock in a subquery", "SELECT origin, MAX(r) AS m FROM (SELECT origin, RAND() AS r FROM"
        + " flights) GROUP BY origin", invalid, NOT_DETERMINISTIC));
    corpus.add(create("a clock in a CTE", "WITH t AS (SELECT origin, NOW() AS t FROM flights) SELECT origin, MAX(t)"
        + " AS m FROM t GROUP BY origin", invalid, NOT_DETERMINISTIC));
    corpus.add(create("a clock in WHERE", "SELECT origin, COUNT(*) AS n FROM flights WHERE _event_time < NOW()"
        + " GROUP BY origin", invalid, NOT_DETERMINISTIC));
    corpus.add(create("chance in HAVING", "SELECT origin, COUNT(*) AS n" + group + " HAVING COUNT(*) > RAND_INTEGER(3)",
        invalid, NOT_DETERMINISTIC));
    corpus.add(create("chance in a catalog-qualified query", "SELECT origin, MAX(RAND()) AS m FROM"
        + " default_catalog.default_database.flights GROUP BY origin", invalid, NOT_DETERMINISTIC));
    corpus.add(create("a processing-time window", "SELECT origin, COUNT(*) AS n FROM (SELECT *, PROCTIME() AS pt FROM"
        + " flights) GROUP BY origin, TUMBLE(pt, INTERVAL '1' MINUTE)", invalid, NOT_DETERMINISTIC));
    corpus.add(create("a watermark", "SELECT origin, MAX(CURRENT_WATERMARK(_event_time)) AS m" + group, invalid,
        NOT_DETERMINISTIC));
    corpus.add(update("chance in a new version", "SELECT origin, COUNT(*) AS n, MAX(RAND()) AS total" + group,
        invalid, NOT_DETERMINISTIC));
    // the shape of a view
    corpus.add(create("a row per event", "SELECT origin, delay FROM flights", invalid, "returns a row per event"));
    corpus.add(create("a row per event behind a literal", "SELECT origin, delay FROM flights WHERE origin <>"
        + " 'GroupAggregate'", invalid, "returns a row per event"));
    corpus.add(create("a key that is not unique", "SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin,"
        + " destination", invalid, "does not identify one row"));
    corpus.add(create("a raw-event join", "SELECT a.origin, COUNT(*) AS n FROM flights a JOIN flights b ON"
        + " a.origin = b.destination GROUP BY a.origin", invalid, "joins raw events"));
    corpus.add(create("order of two streams", "SELECT origin, LAST_VALUE(delay) AS d FROM (SELECT origin, delay FROM"
        + " flights UNION ALL SELECT origin, delay FROM other) GROUP BY origin", invalid,
        "reads several streams [flights, other] and applies LAST_VALUE to the output of a join or UNION ALL"));
    corpus.add(create("floating sum over two streams", "SELECT k, SUM(s) AS s FROM (SELECT 'all' AS k,"
        + " CAST(f.n AS DOUBLE) * o.n AS s FROM (SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin) f JOIN"
        + " (SELECT origin, COUNT(*) AS n FROM other GROUP BY origin) o ON f.origin = o.origin) GROUP BY k", invalid,
        "SUM of DOUBLE"));
    corpus.add(create("no stream", "SELECT 1 AS x", invalid, "this SQL reads none"));
    corpus.add(create("LIMIT", "SELECT origin, COUNT(*) AS n" + group + " LIMIT 3", invalid, "LIMIT without ORDER BY"));
    corpus.add(create("never true", "SELECT origin, COUNT(*) AS n FROM flights WHERE 1 = 0 GROUP BY origin", invalid,
        "always empty"));
    corpus.add(create("an unnamed column", "SELECT origin, COUNT(*)" + group, invalid, "has no name"));
    corpus.add(create("a window without window_start in the key", "SELECT origin, window_start, COUNT(*) AS n FROM"
        + " TABLE(TUMBLE(TABLE flights, DESCRIPTOR(_event_time), INTERVAL '1' MINUTE)) GROUP BY origin, window_start,"
        + " window_end", invalid, "window_start"));
    // SQL that is not SQL, or names what does not exist
    corpus.add(create("empty", " ", invalid, "SQL is empty"));
    corpus.add(create("a typo", "SELEC origin" + group, invalid, "line 1, column 1"));
    corpus.add(create("two statements", "SELECT origin, COUNT(*) AS n" + group + "; DROP TABLE flights", invalid,
        "invalid SQL"));
    corpus.add(create("DDL", "DROP TABLE flights", invalid, "invalid SQL"));
    corpus.add(create("an INSERT", "INSERT INTO flights SELECT * FROM flights", invalid, "invalid SQL"));
    corpus.add(create("an unknown column", "SELECT airline, COUNT(*) AS n FROM flights GROUP BY airline", invalid,
        "Column 'airline' not found"));
    corpus.add(create("an unknown stream", "SELECT origin, COUNT(*) AS n FROM nope GROUP BY origin", invalid, "nope"));
    corpus.add(create("another catalog", "SELECT origin, COUNT(*) AS n FROM other_catalog.default_database.flights"
        + " GROUP BY origin", invalid, "invalid SQL"));
    corpus.add(create("3,000 parentheses", "SELECT origin, MAX(" + "(".repeat(3000) + "delay" + ")".repeat(3000)
        + ") AS m" + group, invalid, "too deep"));
    corpus.add(create("NUL and control characters", "\u0000\u0001 SELECT", invalid, "invalid SQL"));
    corpus.add(create("an unterminated literal of 1 MB", "SELECT origin, COUNT(*) AS n FROM flights WHERE origin <> '"
        + "x".repeat(1 << 20) + group, invalid, "invalid SQL"));
    // training-set expressions are SQL too
    corpus.add(trainingSet("a random label", b -> b.setLabel("RAND() > 0.5"), "--label", NOT_DETERMINISTIC));
    corpus.add(trainingSet("a clock in the entity", b -> b.setEntity("CAST(NOW() AS STRING)"), "--entity",
        NOT_DETERMINISTIC));
    corpus.add(trainingSet("a clock in where", b -> b.setWhere("_event_time < CURRENT_TIMESTAMP"), "--where",
        NOT_DETERMINISTIC));
    corpus.add(trainingSet("a UUID label", b -> b.setLabel("UUID()"), "--label", NOT_DETERMINISTIC));
    corpus.add(trainingSet("a label that is not SQL", b -> b.setLabel("delay >"), "--label", "invalid expression"));
    corpus.add(trainingSet("a label naming no column", b -> b.setLabel("nope > 1"), "--label", "nope"));
    corpus.add(trainingSet("a label that ends the query", b -> b.setLabel("1 AS x FROM flights; DROP TABLE flights --"),
        "--label"));
    corpus.add(trainingSet("a where that is not a condition", b -> b.setWhere("origin"), "--where"));
    corpus.add(trainingSet("an empty label", b -> b.setLabel(""), "label"));
    corpus.add(trainingSet("a feature of no view", b -> b.addFeatures("nope.n"), Status.Code.NOT_FOUND,
        "transformation 'nope' does not exist"));
    corpus.add(trainingSet("a feature of no column", b -> b.addFeatures("by_origin.nope"), "has no column 'nope'"));
    corpus.add(trainingSet("a feature that is not a feature", b -> b.addFeatures("by_origin"), "by_origin"));
    return corpus;
  }

  /** What must not change: the tenant's transformations and versions, and a view's row and position. */
  private static String state() {
    List<String> transforms = new ArrayList<>();
    transforms().list(ListTransformsRequest.newBuilder().setTenant(TENANT).build()).getTransformsList()
        .forEach(t -> transforms.add(t.getName() + " v" + t.getVersion()));
    ViewStatus status = transforms().status(GetTransformRequest.newBuilder().setTenant(TENANT).setName("by_origin").build());
    return transforms + " " + new TreeMap<>(SERVER.resp().sync().hgetall("by_origin:ATL")) + " " + status.getPhase() + " "
        + status.getEventsApplied() + " " + status.getPositionList();
  }

  @Test
  void everyEntryGetsItsStatusAndMessageAndChangesNothing() {
    List<Entry> corpus = corpus();
    String before = state();
    assertThat(before).contains("[by_origin v1]").contains("n=6").contains("total=30").contains("LIVE 12");
    for (Entry entry : corpus) {
      StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> entry.call().apply(SERVER.channel()), entry.what());
      assertThat(e.getStatus().getCode()).as(entry.what() + ": " + e.getStatus()).isEqualTo(entry.code());
      for (String fragment : entry.fragments()) {
        assertThat(e.getStatus().getDescription()).as(entry.what()).contains(fragment);
      }
      assertThat(e.getStatus().getDescription()).as(entry.what() + ": a short message").hasSizeLessThan(1500)
          .doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(state()).as("after " + entry.what()).isEqualTo(before);
      assertThat(SERVER.resp().sync().ping()).isEqualTo("PONG");
    }
    assertThat(corpus).as("entries in the corpus (docs/hostile-input.md)").hasSize(57);
  }
}
