package dev.streamfold.views;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies commits to one version of a view. Each commit is one Lua script run by Redis atomically:
 * the row changes, the new position and events-applied count, and the commit time land together (a
 * reader sees the state before or after a commit, never half of one). A commit is idempotent: one whose
 * events-applied count is below the committed count is skipped, and one with an equal count only
 * refreshes the metadata (its row changes were applied by the commit that reached that count, since
 * row changes only come from events). Not thread-safe: one writer per committer.
 *
 * <p>Redis Cluster: every key a commit touches carries the version's hash tag, so the script runs
 * within one slot and stays atomic.
 */
public final class ViewWriter implements AutoCloseable {
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final ViewName name;
  private final int version;
  private String scriptSha;

  ViewWriter(StatefulRedisConnection<String, String> connection, ViewName name, int version) {
    this.connection = connection;
    this.redis = RedisFailures.translating(connection.sync());
    this.name = name;
    this.version = version;
  }

  /**
   * The progress that a commit records.
   *
   * @param phase phase after this commit
   * @param eventsApplied events folded into the view after this commit
   * @param position last applied message ID per partition
   * @param backfillTargetEvents events in the stream when the job started
   * @param backfillTarget latest message ID of every partition holding events when the job started, empty when
   *     the stream was empty
   * @param eventsBehindWatermark events read with an event time below the watermark so far (event-time
   *     views; 0 otherwise)
   * @param clockPosition a view over several streams: the tick committed and its vectors of the streams read
   *     ({@code position} is then empty); {@link ClockPosition#NONE} for a view over one stream
   * @param backfillTargetClock a view over several streams: the clock's last tick when the job started
   *     ({@code backfillTarget} is then empty); {@link ClockPosition#NONE} otherwise
   */
  public record Progress(ViewPhase phase, long eventsApplied, PositionVector position,
      long backfillTargetEvents, PositionVector backfillTarget, long eventsBehindWatermark,
      ClockPosition clockPosition, ClockPosition backfillTargetClock) {

    /** Progress of a view over one stream. */
    public Progress(ViewPhase phase, long eventsApplied, PositionVector position, long backfillTargetEvents,
        PositionVector backfillTarget, long eventsBehindWatermark) {
      this(phase, eventsApplied, position, backfillTargetEvents, backfillTarget, eventsBehindWatermark,
          ClockPosition.NONE, ClockPosition.NONE);
    }

    /** Progress of a view over several streams, positioned by the tenant clock. */
    public static Progress clocked(ViewPhase phase, long eventsApplied, ClockPosition position,
        long backfillTargetEvents, ClockPosition backfillTarget) {
      return clocked(phase, eventsApplied, position, backfillTargetEvents, backfillTarget, 0);
    }

    /** Progress of a view over several streams, positioned by the tenant clock, with event-time windows. */
    public static Progress clocked(ViewPhase phase, long eventsApplied, ClockPosition position,
        long backfillTargetEvents, ClockPosition backfillTarget, long eventsBehindWatermark) {
      return new Progress(phase, eventsApplied, PositionVector.EMPTY, backfillTargetEvents, PositionVector.EMPTY,
          eventsBehindWatermark, position, backfillTarget);
    }

    /** Progress of a view without event time. */
    public Progress(ViewPhase phase, long eventsApplied, PositionVector position, long backfillTargetEvents,
        PositionVector backfillTarget) {
      this(phase, eventsApplied, position, backfillTargetEvents, backfillTarget, 0);
    }
  }

  /**
   * Commit row changes and progress atomically, unless a commit with at least as many events applied
   * already landed (then only metadata is refreshed, or nothing when the count is lower).
   *
   * @param upserts row key to the full row (column to value text; null values are left out)
   * @param deletes row keys whose rows were retracted (a key in both is upserted)
   * @param progress the position and counts after these changes
   * @param nowMs commit time, epoch milliseconds
   * @return true when applied, false when skipped as already committed
   * @throws ViewStoreException if Redis fails; nothing of the commit is applied
   */
  public boolean commit(Map<String, Map<String, String>> upserts, Iterable<String> deletes, Progress progress,
      long nowMs) {
    List<String> keys = new ArrayList<>();
    List<String> args = new ArrayList<>();
    keys.add(RedisKeys.meta(name, version));
    keys.add(RedisKeys.keys(name, version));
    args.add(Long.toString(progress.eventsApplied()));
    String[] meta = {
        "phase", progress.phase().name(),
        "events_applied", Long.toString(progress.eventsApplied()),
        "position", progress.position().toString(),
        "backfill_target_events", Long.toString(progress.backfillTargetEvents()),
        "backfill_target_message_id", progress.backfillTarget().toString(),
        "updated_at_ms", Long.toString(nowMs),
        "events_behind_watermark", Long.toString(progress.eventsBehindWatermark()),
        "clock_position", progress.clockPosition().toString(),
        "backfill_target_clock", progress.backfillTargetClock().toString(),
        "error", ""};
    args.add(Integer.toString(meta.length / 2));
    args.addAll(List.of(meta));
    for (String rowKey : deletes) {
      if (upserts.containsKey(rowKey)) {
        continue;
      }
      keys.add(RedisKeys.row(name, version, rowKey));
      args.add("D");
      args.add(rowKey);
    }
    for (Map.Entry<String, Map<String, String>> upsert : upserts.entrySet()) {
      keys.add(RedisKeys.row(name, version, upsert.getKey()));
      args.add("U");
      args.add(upsert.getKey());
      args.add(Integer.toString(upsert.getValue().size()));
      upsert.getValue().forEach((field, value) -> {
        args.add(field);
        args.add(value);
      });
    }
    if (scriptSha == null) {
      scriptSha = redis.scriptLoad(RedisScripts.COMMIT);
    }
    String[] keyArray = keys.toArray(new String[0]);
    String[] argArray = args.toArray(new String[0]);
    Long applied;
    try {
      applied = redis.evalsha(scriptSha, ScriptOutputType.INTEGER, keyArray, argArray);
    } catch (RedisFailures.ScriptNotCached flushed) {
      scriptSha = redis.scriptLoad(RedisScripts.COMMIT);
      applied = redis.evalsha(scriptSha, ScriptOutputType.INTEGER, keyArray, argArray);
    }
    return applied != null && applied == 1L;
  }

  @Override
  public void close() {
    connection.close();
  }
}
