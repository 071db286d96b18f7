package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hostile view SQL, planned with Flink's real planner (no servers): each refusal says why and what works. */
class HostileSqlTest {
  private static final Map<String, List<StreamColumn>> STREAMS = Map.of("flights", List.of(
      new StreamColumn("delay", "INT"), new StreamColumn("origin", "STRING"), new StreamColumn("destination", "STRING")));

  private static void refused(String sql, String... fragments) {
    var thrown = assertThatThrownBy(() -> ViewJobBuilder.plan(sql, STREAMS, List.of())).as(sql)
        .isInstanceOf(TransformException.InvalidSql.class);
    for (String fragment : fragments) {
      thrown.hasMessageContaining(fragment);
    }
  }

  @Test
  void unparsableSqlPointsAtTheProblem() {
    refused("SELECT origin COUNT(*) FROM flights GROUP BY origin", "invalid SQL", "line 1");
    refused("\u0000\u0001 DROP TABLE flights; --", "invalid SQL");
    refused("", "SQL is empty");
    refused("SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin; SELECT 1", "invalid SQL");
  }

  @Test
  void unknownColumnsAndStreamsAreNamed() {
    refused("SELECT airline, COUNT(*) AS n FROM flights GROUP BY airline", "Column 'airline' not found");
    refused("SELECT origin, COUNT(*) AS n FROM nope GROUP BY origin", "nope");
  }

  @Test
  void nonDeterministicFunctionsAreRefusedBecauseViewsMustBeReplayable() {
    for (String call : List.of("NOW()", "RAND()", "CURRENT_TIMESTAMP", "UUID()", "PROCTIME()", "rand_integer(10)")) {
      refused("SELECT origin, MAX(" + call + ") AS x FROM flights GROUP BY origin", "is not deterministic",
          "replayed", "_event_time");
    }
  }

  @Test
  void aQueryWithoutGroupBySaysWhatIsSupported() {
    refused("SELECT origin, delay FROM flights", "returns a row per event", "use GROUP BY",
        "supported: GROUP BY, event-time windows", "ROW_NUMBER()");
    refused("SELECT * FROM flights", "returns a row per event");
  }

  @Test
  void joinsOfRawEventsAreRefusedBecauseTheirStateGrowsWithTheLedger() {
    refused("SELECT a.origin, COUNT(*) AS n FROM flights a JOIN flights b ON a.origin = b.destination GROUP BY a.origin",
        "joins raw events (InnerJoin)", "state forever", "join aggregates instead");
    refused("SELECT a.origin, COUNT(*) AS n FROM flights a, flights b WHERE a.delay > b.delay GROUP BY a.origin",
        "joins raw events");
    refused("SELECT origin, COUNT(*) AS n FROM flights WHERE origin IN (SELECT destination FROM flights) GROUP BY origin",
        "joins raw events (LeftSemiJoin)");
    // joins of aggregates keep one row per key on each side: allowed
    ViewJobBuilder.PlannedQuery plan = ViewJobBuilder.plan("SELECT a.origin, a.n, b.m FROM"
        + " (SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin) a JOIN"
        + " (SELECT destination, COUNT(*) AS m FROM flights GROUP BY destination) b ON a.origin = b.destination",
        STREAMS, List.of());
    assertThat(plan.columns()).containsOnlyKeys("origin", "n", "m");
  }
}
