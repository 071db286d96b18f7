package dev.streamfold.transforms.sql;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The table environment every Streamfold job and every planning runs in, and the quoting of identifiers in
 * the SQL Streamfold writes: planning and jobs must agree on both, so they live in one place.
 */
public final class TableEnvironments {
  private TableEnvironments() {}

  /**
   * The table environment of Streamfold jobs.
   *
   * @param env the execution environment
   * @param miniBatch true for view jobs: mini-batches fold many events per key before emitting one
   *     changelog update (a bundle is flushed before each checkpoint barrier, so commits stay aligned
   *     with positions); false where every event's change must come out before the next event's
   *     watermark (training sets' ledger clock)
   * @return the table environment (UTC session time zone)
   */
  public static StreamTableEnvironment create(StreamExecutionEnvironment env, boolean miniBatch) {
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    Configuration tableConf = new Configuration();
    tableConf.setString("table.exec.mini-batch.enabled", Boolean.toString(miniBatch));
    tableConf.setString("table.exec.mini-batch.allow-latency", "200 ms");
    tableConf.setString("table.exec.mini-batch.size", "5000");
    tableConf.setString("table.local-time-zone", "UTC");
    tableEnv.getConfig().addConfiguration(tableConf);
    return tableEnv;
  }

  /** Quote a SQL identifier with backticks (a backtick inside is doubled). */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }
}
