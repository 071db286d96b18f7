package dev.streamfold.transforms.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SQL planning with Flink's real planner, no servers. */
class SqlPlannerTest {
  private static final List<StreamColumn> FLIGHTS = List.of(new StreamColumn("date", "TIMESTAMP"),
      new StreamColumn("delay", "INT"), new StreamColumn("distance", "INT"), new StreamColumn("origin", "STRING"),
      new StreamColumn("destination", "STRING"));
  private static final Map<String, List<StreamColumn>> STREAMS = Map.of("flights", FLIGHTS,
      "other", List.of(new StreamColumn("x", "BIGINT")));

  @Test
  void plansTheDemoQuery() {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan("SELECT origin, COUNT(*) AS flights, "
        + "AVG(CAST(delay AS DOUBLE)) AS avg_delay FROM flights GROUP BY origin", STREAMS, List.of());
    assertThat(plan.sourceStream()).isEqualTo("flights");
    assertThat(plan.keyColumns()).containsExactly("origin");
    assertThat(plan.columns()).containsExactly(Map.entry("origin", "STRING"), Map.entry("flights", "BIGINT"),
        Map.entry("avg_delay", "DOUBLE"));
  }

  @Test
  void metadataColumnsAreQueryable() {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan(
        "SELECT _key, MAX(_event_time) AS latest FROM flights GROUP BY _key", STREAMS, List.of("_key"));
    assertThat(plan.columns()).containsEntry("latest", "TIMESTAMP");
  }

  @Test
  void parseErrorsPointAtTheWord() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELEC origin FROM flights", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("line 1, column 1: 'SELEC'");
  }

  @Test
  void unknownColumnIsNamed() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT nope, COUNT(*) FROM flights GROUP BY nope", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("Column 'nope' not found");
  }

  @Test
  void unknownStreamIsNamed() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT a FROM missing", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("missing")
        .hasMessageEndingWith("(streams of the tenant: [flights, other])");
  }

  @Test
  void aQueryMustReadAStream() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT 1 AS x", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("reads one or more streams; this SQL reads none");
  }

  private static final Map<String, List<StreamColumn>> TWO_STREAMS = Map.of("flights", FLIGHTS, "airports",
      List.of(new StreamColumn("iata", "STRING"), new StreamColumn("state", "STRING"),
          new StreamColumn("latitude", "DOUBLE")));

  /** Delays by state: each side aggregated by the join key (state bounded by keys), the airport's latest state. */
  private static final String DELAYS_BY_STATE = "SELECT a.state, SUM(f.n) AS flights, SUM(f.delay) AS delay"
      + " FROM (SELECT origin, COUNT(*) AS n, SUM(CAST(delay AS BIGINT)) AS delay FROM flights GROUP BY origin) f"
      + " JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a ON f.origin = a.iata"
      + " GROUP BY a.state";

  @Test
  void aJoinOfTwoStreamsIsPlannedWithTheColumnsReadOfEach() {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan(DELAYS_BY_STATE, TWO_STREAMS, List.of());
    assertThat(plan.streams()).containsExactly("airports", "flights");
    assertThat(plan.keyColumns()).containsExactly("state");
    assertThat(plan.columnsRead("flights")).contains("origin", "delay").doesNotContain("distance");
    assertThat(plan.columnsRead("airports")).contains("iata", "state").doesNotContain("latitude");
    assertThatThrownBy(plan::sourceStream).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void orderDependentFunctionsOverAJoinOrUnionOfStreamsAreRefused() {
    String joined = "(SELECT f.origin, f.n, f.delay, a.state, a.latitude FROM (SELECT origin, COUNT(*) AS n,"
        + " MAX(delay) AS delay FROM flights GROUP BY origin) f JOIN (SELECT iata, LAST_VALUE(state) AS state,"
        + " MAX(latitude) AS latitude FROM airports GROUP BY iata) a ON f.origin = a.iata) j";
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT state, LAST_VALUE(origin) AS origin FROM " + joined
        + " GROUP BY state", TWO_STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("reads several streams [airports, flights] and applies LAST_VALUE to the output of a join");
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT state, SUM(latitude) AS s FROM " + joined + " GROUP BY state",
        TWO_STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("SUM of DOUBLE");
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY k"
        + " ORDER BY n DESC) AS r FROM (SELECT origin AS k, delay AS n FROM flights UNION ALL SELECT iata AS k,"
        + " 1 AS n FROM airports)) WHERE r = 1", TWO_STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("ROW_NUMBER");
    // the same functions over one stream's own events, before the join, keep the ledger's order: planned
    assertThat(SqlPlanner.plan("SELECT state, SUM(n) AS n, MAX(delay) AS delay FROM " + joined + " GROUP BY state",
        TWO_STREAMS, List.of()).streams()).containsExactly("airports", "flights");
  }

  @Test
  void windowsOverOneStreamOfSeveralArePlannedAndWindowsOverAUnionAreRefused() {
    // a window over flights alone, joined with airports: each stream's rows carry that stream's own watermarks
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan("SELECT w.window_start, a.state, SUM(w.n) AS n FROM (SELECT origin,"
        + " window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE flights, DESCRIPTOR(_event_time),"
        + " INTERVAL '1' DAY)) GROUP BY origin, window_start, window_end) w JOIN (SELECT iata, LAST_VALUE(state) AS"
        + " state FROM airports GROUP BY iata) a ON w.origin = a.iata GROUP BY w.window_start, a.state",
        TWO_STREAMS, List.of("window_start", "state"));
    assertThat(plan.eventTimeWindows()).isTrue();
    assertThat(plan.streams()).containsExactly("airports", "flights");
    // a window over the rows of both: whether an event is late would depend on how the inputs interleave
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE both_streams,"
        .replace("TABLE both_streams", "(SELECT origin AS k, _event_time FROM flights UNION ALL SELECT iata AS k,"
            + " _event_time FROM airports)") + " DESCRIPTOR(_event_time), INTERVAL '1' DAY)) GROUP BY window_start,"
        + " window_end", TWO_STREAMS, List.of("window_start")))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("TUMBLE is applied to the rows of a join or UNION ALL");
    // the same over one stream's own rows: Flink would drop the second input of the union without a word
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE((SELECT origin,"
        + " _event_time FROM flights WHERE delay > 0 UNION ALL SELECT destination, _event_time FROM flights),"
        + " DESCRIPTOR(_event_time), INTERVAL '1' DAY)) GROUP BY window_start, window_end", STREAMS, List.of("window_start")))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("TUMBLE is applied to the rows of a join or UNION ALL");
  }

  @Test
  void aUnionAllOfTwoStreamsAggregatedOrderIndependentlyIsPlanned() {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan("SELECT k, COUNT(*) AS n, SUM(x) AS x FROM (SELECT origin AS k,"
        + " CAST(delay AS BIGINT) AS x FROM flights UNION ALL SELECT iata AS k, 1 AS x FROM airports) GROUP BY k",
        TWO_STREAMS, List.of());
    assertThat(plan.streams()).containsExactly("airports", "flights");
  }

  @Test
  void keyColumnMustBeAResultColumn() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin",
        STREAMS, List.of("destination")))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("key column 'destination' is not a result column");
  }

  @Test
  void aQueryWithARowPerEventIsRefused() {
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, delay FROM flights", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("returns a row per event");
  }

  @Test
  void theDefaultKeyMustBeTheGroupingColumn() {
    assertThatThrownBy(() -> SqlPlanner.plan(
        "SELECT COUNT(*) AS n, origin FROM flights GROUP BY origin", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("first result column 'n'");
    assertThat(SqlPlanner.plan("SELECT COUNT(*) AS n, origin FROM flights GROUP BY origin", STREAMS,
        List.of("origin")).keyColumns()).containsExactly("origin");
  }

  @Test
  void aStreamWithUnusableColumnsDoesNotBreakQueriesOverOtherStreams() {
    Map<String, List<StreamColumn>> streams = new java.util.HashMap<>(STREAMS);
    streams.put("broken", List.of(new StreamColumn("a", "INT"), new StreamColumn("a", "STRING")));
    assertThat(SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin", streams, List.of())
        .sourceStream()).isEqualTo("flights");
  }

  @Test
  void aStreamWithoutDeclaredColumnsStillHasItsMetadataColumns() {
    Map<String, List<StreamColumn>> streams = Map.of("clicks", List.of());
    assertThat(SqlPlanner.plan("SELECT _key, COUNT(*) AS n FROM clicks GROUP BY _key", streams, List.of())
        .columns()).containsOnlyKeys("_key", "n");
  }

  @Test
  void nonDeterministicFunctionsAreRefusedBecauseViewsMustBeReplayable() {
    for (String call : List.of("NOW()", "CURRENT_TIMESTAMP", "RAND()", "UUID()", "PROCTIME()", "UNIX_TIMESTAMP()",
        "localtimestamp")) {
      assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, MAX(" + call + ") AS m FROM flights GROUP BY origin",
          STREAMS, List.of()))
          .as(call).isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("not deterministic")
          .hasMessageContaining("_event_time");
    }
    // Names inside string literals, quoted identifiers and comments are not calls; UNIX_TIMESTAMP(s) is deterministic.
    SqlPlanner.plan("SELECT origin, COUNT(*) AS n, MAX(UNIX_TIMESTAMP('2015-01-01 00:00:00')) AS t"
        + " FROM flights WHERE destination <> 'NOW()' -- RAND()\n GROUP BY origin", STREAMS, List.of());
  }
}
