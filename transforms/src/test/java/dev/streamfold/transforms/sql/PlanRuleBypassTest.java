package dev.streamfold.transforms.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Attempts to get around each rule SQL must meet, planned with Flink's real planner (no servers): every
 * rule reads the optimized plan, so quoting, case, comments, catalog-qualified names, subqueries, CTEs,
 * expressions in any clause and function aliases are refused with the same message as the plain form.
 */
class PlanRuleBypassTest {
  private static final Map<String, List<StreamColumn>> STREAMS = Map.of(
      "flights", List.of(new StreamColumn("delay", "INT"), new StreamColumn("origin", "STRING"),
          new StreamColumn("destination", "STRING")),
      "other", List.of(new StreamColumn("x", "BIGINT")));

  /** Every way found to call something that is not a function of the events. */
  static List<String> nonDeterministicViews() {
    List<String> sql = new ArrayList<>();
    // the functions and their aliases, in any case
    for (String call : List.of("NOW()", "now()", "Now()", "CURRENT_TIMESTAMP", "current_timestamp", "LOCALTIMESTAMP",
        "CURRENT_TIME", "LOCALTIME", "CURRENT_DATE", "CURRENT_ROW_TIMESTAMP()", "UNIX_TIMESTAMP()", "RAND()", "rand(7)",
        "RAND_INTEGER(10)", "rand_integer(3, 10)", "UUID()", "uuid()", "CURRENT_WATERMARK(_event_time)",
        "PROCTIME()", "CAST(PROCTIME() AS TIMESTAMP(3))", "RAND/* a comment */()", "RAND\n()",
        "TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(), 0)", "CAST(NOW() AS STRING)", "COALESCE(NULL, RAND())",
        "CASE WHEN delay > 0 THEN RAND() ELSE 0 END", "CHAR_LENGTH(UUID())")) {
      sql.add("SELECT origin, MAX(" + call + ") AS m FROM flights GROUP BY origin");
    }
    // catalog-qualified table names
    sql.add("SELECT origin, MAX(RAND()) AS m FROM default_catalog.default_database.flights GROUP BY origin");
    sql.add("SELECT origin, MAX(RAND()) AS m FROM `default_catalog`.`default_database`.`flights` GROUP BY origin");
    // subqueries, CTEs, derived tables
    sql.add("SELECT origin, MAX(r) AS m FROM (SELECT origin, RAND() AS r FROM flights) GROUP BY origin");
    sql.add("WITH t AS (SELECT origin, NOW() AS n FROM flights) SELECT origin, MAX(n) AS m FROM t GROUP BY origin");
    sql.add("WITH a AS (SELECT origin, UUID() AS u FROM flights), b AS (SELECT * FROM a)"
        + " SELECT origin, MAX(u) AS m FROM b GROUP BY origin");
    sql.add("SELECT origin, COUNT(*) AS n FROM flights WHERE delay > (SELECT MAX(RAND_INTEGER(100)) FROM flights)"
        + " GROUP BY origin");
    sql.add("SELECT origin, COUNT(*) AS n FROM flights WHERE origin IN (SELECT CAST(UUID() AS STRING) FROM flights)"
        + " GROUP BY origin");
    // WHERE, HAVING, GROUP BY, ORDER BY (Top-N), join conditions, window arguments
    sql.add("SELECT origin, COUNT(*) AS n FROM flights WHERE RAND() < 0.5 GROUP BY origin");
    sql.add("SELECT origin, COUNT(*) AS n FROM flights WHERE _event_time < NOW() GROUP BY origin");
    sql.add("SELECT origin, MAX(delay) AS m FROM flights GROUP BY origin HAVING MAX(delay) > RAND_INTEGER(3)");
    sql.add("SELECT origin, b, COUNT(*) AS n FROM (SELECT origin, RAND() > 0.5 AS b FROM flights) GROUP BY origin, b");
    sql.add("SELECT origin, destination, rn FROM (SELECT origin, destination, ROW_NUMBER() OVER (PARTITION BY origin"
        + " ORDER BY RAND()) AS rn FROM (SELECT origin, destination, COUNT(*) AS n FROM flights GROUP BY origin,"
        + " destination)) WHERE rn <= 1");
    sql.add("SELECT a.origin, a.n, b.m FROM (SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin) a JOIN"
        + " (SELECT destination, COUNT(*) AS m FROM flights GROUP BY destination) b"
        + " ON a.origin = b.destination AND RAND() < 0.5");
    sql.add("SELECT origin, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE flights, DESCRIPTOR(_event_time),"
        + " INTERVAL '1' MINUTE)) WHERE RAND() < 0.5 GROUP BY origin, window_start, window_end");
    // processing time as a window's time attribute
    sql.add("WITH p AS (SELECT *, PROCTIME() AS pt FROM flights) SELECT origin, window_start, COUNT(*) AS n FROM"
        + " TABLE(TUMBLE(TABLE p, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY origin, window_start, window_end");
    sql.add("SELECT origin, COUNT(*) AS n FROM (SELECT *, PROCTIME() AS pt FROM flights)"
        + " GROUP BY origin, TUMBLE(pt, INTERVAL '1' MINUTE)");
    // a lateral table of values
    sql.add("SELECT origin, MAX(r) AS m FROM flights CROSS JOIN LATERAL (VALUES (RAND())) AS t(r) GROUP BY origin");
    return sql;
  }

  @Test
  void everyWayToCallTheClockOrChanceIsRefusedWithTheSameMessage() {
    List<String> ways = nonDeterministicViews();
    for (String sql : ways) {
      List<String> key = sql.contains("window_start") ? List.of("origin", "window_start")
          : sql.contains("rn <= 1") ? List.of("origin") : List.of();
      assertThatThrownBy(() -> SqlPlanner.plan(sql, STREAMS, key)).as(sql)
          .isInstanceOf(TransformException.InvalidSql.class)
          .hasMessageContaining("is not deterministic: views and training sets must give the same rows whenever the"
              + " ledger is replayed")
          .hasMessageContaining("_event_time");
    }
    assertThat(ways).hasSize(44);
  }

  @Test
  void trainingSetExpressionsAreCheckedOnTheirPlanToo() {
    for (String expression : List.of("RAND()", "CAST(UUID() AS STRING)", "NOW() > _event_time",
        "delay + RAND_INTEGER(2)", "(SELECT MAX(RAND()) FROM flights)")) {
      assertThatThrownBy(() -> SqlPlanner.planColumns("SELECT " + expression + " AS `v` FROM flights", STREAMS))
          .as(expression).isInstanceOf(TransformException.InvalidSql.class)
          .hasMessageContaining("is not deterministic");
    }
    assertThat(SqlPlanner.planColumns("SELECT delay * 2 AS `v` FROM flights", STREAMS)).containsEntry("v", "INT");
  }

  @Test
  void namesOfFunctionsInLiteralsIdentifiersAndCommentsAreNotCalls() {
    Map<String, List<StreamColumn>> streams = Map.of("flights", List.of(new StreamColumn("origin", "STRING"),
        new StreamColumn("NOW", "STRING"), new StreamColumn("rand", "INT")));
    SqlPlanner.plan("SELECT origin, MAX(`NOW`) AS now_seen, SUM(`rand`) AS `RAND()` FROM flights"
        + " WHERE origin <> 'NOW()' /* RAND() */ -- UUID()\n GROUP BY origin", streams, List.of());
  }

  @Test
  void theAggregationRuleCannotBeSatisfiedByNamesInLiterals() {
    for (String sql : List.of(
        "SELECT origin, delay FROM flights WHERE origin <> 'GroupAggregate'",
        "SELECT origin, delay FROM flights WHERE destination <> 'WindowAggregate(groupBy=[origin]'",
        "SELECT origin, delay AS `groupBy=[origin]` FROM flights",
        "SELECT origin, delay FROM flights WHERE origin <> 'partitionBy=[origin]'")) {
      assertThatThrownBy(() -> SqlPlanner.plan(sql, STREAMS, List.of())).as(sql)
          .isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("returns a row per event");
    }
  }

  @Test
  void theKeyRuleCannotBeSatisfiedOrTrippedByNamesInLiterals() {
    // a literal that spells the plan text of an upsert materializer does not refuse a good key
    SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM flights WHERE destination <> 'upsertMaterialize=[true]'"
        + " GROUP BY origin", STREAMS, List.of());
    // nor does one that spells a unique key accept a bad one
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM flights WHERE destination <>"
        + " 'upsertMaterialize=[false]' GROUP BY origin, destination", STREAMS, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("does not identify one row");
  }

  @Test
  void theJoinStateRuleHoldsWhateverTheJoinIsCalled() {
    for (String sql : List.of(
        "WITH a AS (SELECT * FROM flights) SELECT a.origin, COUNT(*) AS n FROM a JOIN a AS b ON a.origin = b.destination"
            + " GROUP BY a.origin",
        "SELECT a.origin, COUNT(*) AS n FROM default_catalog.default_database.flights a, flights b"
            + " WHERE a.origin = b.destination AND a.origin <> 'leftInputSpec=[JoinKeyContainsUniqueKey]'"
            + " GROUP BY a.origin",
        "SELECT origin, COUNT(*) AS n FROM flights WHERE EXISTS (SELECT 1 FROM flights f WHERE f.destination ="
            + " flights.origin) GROUP BY origin")) {
      assertThatThrownBy(() -> SqlPlanner.plan(sql, STREAMS, List.of())).as(sql)
          .isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("joins raw events");
    }
  }

  @Test
  void theStreamsReadAreFoundHoweverTheyAreNamed() {
    for (String sql : List.of(
        "SELECT origin, COUNT(*) AS n FROM (SELECT origin FROM flights UNION ALL SELECT CAST(x AS STRING) FROM other)"
            + " GROUP BY origin",
        "WITH o AS (SELECT CAST(x AS STRING) AS origin FROM default_catalog.default_database.other)"
            + " SELECT origin, COUNT(*) AS n FROM (SELECT origin FROM flights UNION ALL SELECT origin FROM o)"
            + " GROUP BY origin")) {
      assertThat(SqlPlanner.plan(sql, STREAMS, List.of()).streams()).as(sql).containsExactly("flights", "other");
    }
    // a stream of the WHERE FALSE kind is still the one it reads
    assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM flights WHERE 1 = 0 GROUP BY origin",
        STREAMS, List.of())).isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("always empty");
    // nothing but the tenant's streams exists: another catalog or database is not found
    for (String table : List.of("other_catalog.default_database.flights", "default_catalog.other_db.flights",
        "`default_catalog.default_database.flights`")) {
      assertThatThrownBy(() -> SqlPlanner.plan("SELECT origin, COUNT(*) AS n FROM " + table + " GROUP BY origin",
          STREAMS, List.of())).as(table).isInstanceOf(TransformException.InvalidSql.class)
          .hasMessageContaining("invalid SQL");
    }
  }

  @Test
  void eventTimeWindowsAreFoundInThePlanHoweverTheyAreWritten() {
    for (String tumble : List.of("TUMBLE(", "tumble(", "Tumble /* the window */ (", "TUMBLE\n(")) {
      String sql = "SELECT origin, window_start, COUNT(*) AS n FROM TABLE(" + tumble + "TABLE flights,"
          + " DESCRIPTOR(_event_time), INTERVAL '1' MINUTE)) GROUP BY origin, window_start, window_end";
      assertThat(SqlPlanner.plan(sql, STREAMS, List.of("origin", "window_start")).eventTimeWindows()).as(sql).isTrue();
    }
    String cte = "WITH w AS (SELECT * FROM TABLE(HOP(TABLE flights, DESCRIPTOR(_event_time), INTERVAL '1' MINUTE,"
        + " INTERVAL '5' MINUTE))) SELECT origin, window_start, COUNT(*) AS n FROM w GROUP BY origin, window_start,"
        + " window_end";
    assertThat(SqlPlanner.plan(cte, STREAMS, List.of("origin", "window_start")).eventTimeWindows()).isTrue();
    // a word TUMBLE that is not a window does not make a query windowed
    Map<String, List<StreamColumn>> streams = Map.of("flights", List.of(new StreamColumn("origin", "STRING"),
        new StreamColumn("tumble", "INT")));
    SqlPlanner.PlannedQuery plain = SqlPlanner.plan("SELECT origin, SUM(`tumble`) AS `TUMBLE(` FROM flights"
        + " WHERE origin <> 'TUMBLE(' GROUP BY origin", streams, List.of());
    assertThat(plain.eventTimeWindows()).isFalse();
    // ordering by _event_time without a window keeps ledger order (no watermark): planned as before
    assertThat(SqlPlanner.plan("SELECT origin, delay FROM (SELECT origin, delay, ROW_NUMBER() OVER (PARTITION BY"
        + " origin ORDER BY _event_time DESC) AS rn FROM flights) WHERE rn = 1", STREAMS, List.of())
        .eventTimeWindows()).isFalse();
  }
}
