package dev.streamfold.views;

import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;

/**
 * Commits batches of row changes to one version of a view, each batch atomically with the view's new
 * position and events-applied count (one MULTI/EXEC on one connection: a reader sees the state before
 * or after a commit, never half of one). Not thread-safe: one writer per Flink sink subtask.
 */
public final class ViewWriter implements AutoCloseable {
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final ViewName name;
  private final int version;

  ViewWriter(StatefulRedisConnection<String, String> connection, ViewName name, int version) {
    this.connection = connection;
    this.redis = connection.sync();
    this.name = name;
    this.version = version;
  }

  /**
   * The progress that a commit records.
   *
   * @param phase phase after this commit
   * @param eventsApplied events folded into the view after this commit
   * @param position last applied message ID text per partition
   * @param backfillTargetEvents events in the stream when the job started
   * @param backfillTargetMessageId latest message ID text when the job started, "" when empty
   */
  public record Progress(ViewPhase phase, long eventsApplied, List<String> position,
      long backfillTargetEvents, String backfillTargetMessageId) {}

  /**
   * Commit row changes and progress in one transaction. Each upsert replaces the whole row.
   *
   * @param upserts row key to the full row (column to value text; null values are left out)
   * @param deletes row keys whose rows were retracted
   * @param progress the position and counts after these changes
   * @param nowMs commit time, epoch milliseconds
   * @throws io.lettuce.core.RedisException if Redis fails; nothing of the commit is applied
   */
  public void commit(Map<String, Map<String, String>> upserts, Iterable<String> deletes, Progress progress,
      long nowMs) {
    String keysSet = RedisKeys.keys(name, version);
    redis.multi();
    for (String rowKey : deletes) {
      redis.del(RedisKeys.row(name, version, rowKey));
      redis.srem(keysSet, rowKey);
    }
    for (Map.Entry<String, Map<String, String>> upsert : upserts.entrySet()) {
      String key = RedisKeys.row(name, version, upsert.getKey());
      redis.del(key);
      if (!upsert.getValue().isEmpty()) {
        redis.hset(key, upsert.getValue());
      }
      redis.sadd(keysSet, upsert.getKey());
    }
    redis.hset(RedisKeys.meta(name, version), Map.of(
        "phase", progress.phase().name(),
        "events_applied", Long.toString(progress.eventsApplied()),
        "position", String.join(",", progress.position()),
        "backfill_target_events", Long.toString(progress.backfillTargetEvents()),
        "backfill_target_message_id", progress.backfillTargetMessageId(),
        "updated_at_ms", Long.toString(nowMs),
        "error", ""));
    TransactionResult result = redis.exec();
    if (result.wasDiscarded()) {
      throw new IllegalStateException("commit to view " + name + " version " + version + " was discarded");
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
