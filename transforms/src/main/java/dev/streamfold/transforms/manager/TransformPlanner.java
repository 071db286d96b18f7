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
 * columns of the tenant's streams, {@link SqlPlanner}'s checks and plan, and the rule that event-time windows need
 * an unpartitioned stream.
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
   * @throws TransformException.InvalidSql if the SQL does not plan, is not deterministic, windows a partitioned
   *     stream by event time, or reads several streams while this server writes no tenant clock
   */
  SqlPlanner.PlannedQuery plan(String tenant, String sql, Map<String, List<StreamColumn>> streams,
      List<String> keyColumns) {
    SqlPlanner.PlannedQuery plan = SqlPlanner.plan(sql, streams, keyColumns);
    if (plan.streams().size() > 1 && ledger.clockInterval().isZero()) {
      throw new TransformException.InvalidSql("this SQL reads several streams " + plan.streams() + ", which a view"
          + " reads in the tenant clock's order, but this server writes no tenant clock (--clock-interval-ms 0);"
          + " start it with a clock interval (default 100 ms)", null);
    }
    checkWindowsUnpartitioned(tenant, plan);
    return plan;
  }

  /**
   * Event-time windows close on a watermark computed from the events in ledger order. A partitioned stream
   * has no such order across partitions: its partitions are read interleaved in any way, so a watermark over
   * all of them runs ahead of the slower partitions and their events become late (dropped, and live and replay
   * disagree). Per-partition watermarks are future work; until then such SQL is refused before anything is
   * stored or started. SQL over several streams is not: its job reads every stream, partitions included, in the
   * tenant clock's one order, and each stream's watermark follows that order.
   *
   * @throws TransformException.InvalidSql naming the stream and its partitions
   */
  private void checkWindowsUnpartitioned(String tenant, SqlPlanner.PlannedQuery plan) {
    if (!plan.eventTimeWindows() || plan.streams().size() > 1) {
      return; // SQL over several streams reads them in the tenant clock's order, partitions included
    }
    StreamInfo info = ledger.describe(new StreamRef(tenant, plan.sourceStream()));
    if (info.partitioned()) {
      throw new TransformException.InvalidSql("stream '" + plan.sourceStream() + "' has " + info.partitions()
          + " partitions: event-time windows (TUMBLE/HOP/CUMULATE/SESSION) need one ledger order to compute"
          + " watermarks from, and a partitioned stream has none across partitions; window an unpartitioned"
          + " stream, or aggregate without windows (e.g. GROUP BY key and a truncated time column)", null);
    }
  }
}
