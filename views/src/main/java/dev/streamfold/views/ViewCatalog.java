package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalog of materialized views in Redis, as {@link ViewStore#catalog()} hands it out: what the transform
 * manager writes besides rows. Registers views, virtual states and the shapes of versions; serves a version,
 * or a virtual state in a view's place (rollback, resume); marks versions failed or complete; drops versions
 * and views. Keeps the store's cache of shapes ({@link ViewSchemas}) in step. Thread-safe.
 */
public final class ViewCatalog {
  private final RedisCommands<String, String> redis;
  private final ViewSchemas schemas;
  private final RedisViewReader reader;

  ViewCatalog(RedisCommands<String, String> redis, ViewSchemas schemas, RedisViewReader reader) {
    this.redis = redis;
    this.schemas = schemas;
    this.reader = reader;
  }

  /**
   * Register a view (or update its schema) without serving any version yet.
   *
   * @param name the view
   * @param schema its shape
   */
  public void define(ViewName name, ViewSchema schema) {
    redis.sadd(RedisKeys.tenantViews(name.tenant()), name.view());
    redis.hset(RedisKeys.view(name), Map.of(
        "columns", schema.encodeColumns(), "key_columns", String.join(",", schema.keyColumns())));
    schemas.put(name, schema);
  }

  /**
   * Record the shape of one version (a new transformation version may add, drop or retype columns, or
   * change the key); readers of that version use it.
   *
   * @param name the view
   * @param version the version
   * @param schema its shape
   */
  public void defineVersion(ViewName name, int version, ViewSchema schema) {
    redis.hset(RedisKeys.meta(name, version), Map.of(
        "columns", schema.encodeColumns(), "key_columns", String.join(",", schema.keyColumns())));
    schemas.put(name, version, schema);
  }

  /**
   * Make readers see {@code version} of a view, unless that or a newer version is served already (a job
   * of an older version that catches up late never takes the view back). The version's shape, as {@link
   * #defineVersion} recorded it, becomes the view's ({@code columns}, {@code key_columns} of the view hash) in
   * the same step, so the view hash never names one version while describing another. One script, atomic for
   * readers (one key: the view hash, so it also runs on Redis Cluster). Older versions' rows stay until {@link
   * #dropVersion}: a reader that resolved the old version just before the switch still finds its rows.
   *
   * @param name the view
   * @param version the version to serve
   * @return true when served, false when that or a newer version was served already
   * @throws ViewStoreException if Redis cannot be reached or refuses the script
   */
  public boolean serve(ViewName name, int version) {
    // A version's recorded shape never changes, so reading it first and writing it in the script is exact.
    List<KeyValue<String, String>> shape = redis.hmget(RedisKeys.meta(name, version), "columns", "key_columns");
    boolean known = shape.get(0).hasValue() && shape.get(1).hasValue();
    String[] args = known
        ? new String[] {Integer.toString(version), shape.get(0).getValue(), shape.get(1).getValue()}
        : new String[] {Integer.toString(version)};
    Long served = redis.eval(RedisScripts.SERVE, ScriptOutputType.INTEGER,
        new String[] {RedisKeys.view(name)}, args);
    boolean applied = served != null && served == 1L;
    if (applied && known) {
      schemas.put(name, ViewSchema.decode(shape.get(0).getValue(), shape.get(1).getValue()));
    }
    return applied;
  }

  /**
   * Serve a virtual state in place of a view (rollback): reads of {@code name} return the rows and
   * metadata of {@code virtualState} until {@link #resume}. One HSET, atomic for readers; the view's own
   * versions keep being maintained underneath.
   *
   * @param name the view
   * @param virtualState a virtual state of the same tenant
   * @throws IllegalArgumentException if the virtual state belongs to another tenant
   */
  public void rollback(ViewName name, ViewName virtualState) {
    if (!virtualState.tenant().equals(name.tenant())) {
      throw new IllegalArgumentException("a view serves only virtual states of its own tenant");
    }
    redis.hset(RedisKeys.view(name), "rollback", virtualState.view());
  }

  /**
   * Point reads of a view back at its own served version (undo {@link #rollback}). One HDEL, atomic.
   *
   * @param name the view
   * @return true when the view was rolled back
   */
  public boolean resume(ViewName name) {
    return redis.hdel(RedisKeys.view(name), "rollback") == 1L;
  }

  /**
   * Register a virtual state: its description and its shape (stored as version 1). Nothing is served
   * until {@link #completeVirtualState}.
   *
   * @param state the virtual state
   * @param schema the shape of its rows
   */
  public void defineVirtualState(VirtualState state, ViewSchema schema) {
    define(state.name(), schema);
    redis.hset(RedisKeys.view(state.name()), state.toHash());
    defineVersion(state.name(), 1, schema);
  }

  /**
   * Mark a virtual state complete (its bounded replay finished) and serve it.
   *
   * @param name the virtual state
   */
  public void completeVirtualState(ViewName name) {
    // A complete state's target is what it applied: a replay's target was an upper bound where the exact count was
    // not known before it ran (an event-time stop, or a partitioned stream: the stream's whole count).
    String applied = redis.hget(RedisKeys.meta(name, 1), "events_applied");
    Map<String, String> fields = new HashMap<>(Map.of("phase", ViewPhase.COMPLETE.name(),
        "updated_at_ms", Long.toString(System.currentTimeMillis())));
    if (applied != null) {
      fields.put("backfill_target_events", applied);
    }
    redis.hset(RedisKeys.meta(name, 1), fields);
    serve(name, 1);
  }

  /**
   * Remove one version's rows and metadata, in batches of 500 keys.
   *
   * @param name the view
   * @param version the version
   */
  public void dropVersion(ViewName name, int version) {
    unlinkMatching(RedisKeys.versionPattern(name, version));
    schemas.forget(name, version);
  }

  private void unlinkMatching(String pattern) {
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      var page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(500));
      if (!page.getKeys().isEmpty()) {
        redis.unlink(page.getKeys().toArray(new String[0]));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  /**
   * Mark a version as failed.
   *
   * @param name the view
   * @param version the version
   * @param error the cause, shown in the view status
   */
  public void fail(ViewName name, int version, String error) {
    redis.hset(RedisKeys.meta(name, version), Map.of("phase", ViewPhase.FAILED.name(), "error", error,
        "updated_at_ms", Long.toString(System.currentTimeMillis())));
  }

  /**
   * Remove a view: its rows of every version, its metadata and its registration. Rows are deleted in
   * batches of 500 keys.
   *
   * @param name the view
   */
  public void drop(ViewName name) {
    redis.unlink(RedisKeys.view(name));
    redis.srem(RedisKeys.tenantViews(name.tenant()), name.view());
    unlinkMatching(RedisKeys.allVersionsPattern(name));
    schemas.forget(name);
  }

  /**
   * Return the newest version that has metadata (the one the current job fills).
   *
   * @param name the view
   * @return the version, or 0 when none exists
   */
  public int latestVersion(ViewName name) {
    int latest = 0;
    for (int v = Math.max(1, reader.servedVersion(name)); v < Math.max(1, reader.servedVersion(name)) + 100; v++) {
      if (redis.exists(RedisKeys.meta(name, v)) == 0) {
        break;
      }
      latest = v;
    }
    return latest;
  }
}
