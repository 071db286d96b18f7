package dev.streamfold.transforms.manager;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.sql.SqlPlanner;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans a SQL transformation against its tenant's streams before anything is stored or started: the declared
 * columns of the tenant's streams, {@link SqlPlanner}'s checks and plan, and whether its job reads in the tenant
 * clock's order (several streams, or event-time windows over a partitioned stream), which needs the clock.
 */
final class TransformPlanner {
  private final Ledger ledger;

  TransformPlanner(Ledger ledger) {
    this.ledger = ledger;
  }

  /**
   * Return the declared columns of every stream of a tenant.
   *
   * @param tenant the tenant
   * @return columns by stream name, in the ledger's order of the streams
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  Map<String, List<StreamColumn>> streamColumns(String tenant) {
    Map<String, List<StreamColumn>> streams = new LinkedHashMap<>();
    for (StreamRef stream : ledger.listStreams(tenant)) {
      streams.put(stream.stream(), ledger.columns(stream)); // not describe: it reads every partition's latest event
    }
    return streams;
  }

  /**
   * Plan SQL over a tenant's streams and check its windows.
   *
   * @param tenant the tenant
   * @param sql the Flink SQL
   * @param streams the tenant's streams' columns ({@link #streamColumns})
   * @param keyColumns row-key columns, or empty for the first result column
   * @return the plan
   * @throws TransformException.InvalidSql if the SQL does not plan or is not deterministic, or if it needs the tenant
   *     clock's order ({@link #clockOrdered}) while this server writes no tenant clock
   */
  SqlPlanner.PlannedQuery plan(String tenant, String sql, Map<String, List<StreamColumn>> streams,
      List<String> keyColumns) {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan(sql, streams, keyColumns);
    checkClock(tenant, plan);
    return plan;
  }

  /**
   * Whether a planned query's job must read in the tenant clock's order: when it reads several streams, and when it
   * computes event-time windows over one partitioned stream. Event-time windows close on a watermark computed from
   * the events in one order; a view over a partitioned stream otherwise reads its partitions in parallel, in an
   * interleaving that differs between runs, so a watermark over all of them would run ahead of the slower
   * partitions and make their events late differently in backfill, tail and replay (a tryout lost 59 % of the
   * events that way). The clock gives the partitions one order.
   *
   * @param tenant the tenant
   * @param plan the query, as {@link #plan} returned it
   * @return true for a job in the clock's order
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  boolean clockOrdered(String tenant, SqlPlanner.PlannedQuery plan) {
    return plan.streams().size() > 1 || windowsOverPartitions(tenant, plan);
  }

  private boolean windowsOverPartitions(String tenant, SqlPlanner.PlannedQuery plan) {
    return plan.eventTimeWindows() && plan.streams().size() == 1
        && ledger.describe(new StreamRef(tenant, plan.sourceStream())).partitioned();
  }

  /**
   * Refuse SQL whose job needs the tenant clock's order ({@link #clockOrdered}) when this server writes no clock.
   *
   * @throws TransformException.InvalidSql naming the streams, or the partitioned stream the windows read
   */
  private void checkClock(String tenant, SqlPlanner.PlannedQuery plan) {
    if (!ledger.clockInterval().isZero()) {
      return;
    }
    if (plan.streams().size() > 1) {
      throw new TransformException.InvalidSql("this SQL reads several streams " + plan.streams() + ", which a view"
          + " reads in the tenant clock's order, but this server writes no tenant clock (--clock-interval-ms 0);"
          + " start it with a clock interval (default 100 ms)", null);
    }
    if (windowsOverPartitions(tenant, plan)) {
      StreamInfo info = ledger.describe(new StreamRef(tenant, plan.sourceStream()));
      throw new TransformException.InvalidSql("stream '" + plan.sourceStream() + "' has " + info.partitions()
          + " partitions: event-time windows (TUMBLE/HOP/CUMULATE/SESSION) need one order of its events to compute"
          + " watermarks from, which the tenant clock gives, but this server writes no tenant clock"
          + " (--clock-interval-ms 0); start it with a clock interval (default 100 ms), or window an unpartitioned"
          + " stream", null);
    }
  }
}
