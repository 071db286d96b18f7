package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Materialized views in one Redis server (layout in {@link RedisKeys}): reads for the query-service
 * and catalog operations for the transform manager. Owns one lettuce client and a shared connection,
 * plus up to {@link #READ_CONNECTIONS} for {@link #rowsWithSchemaAsync} (opened on first use, auto-flush
 * off, see {@link #flushReads()}); thread-safe. Commits of rows go through {@link ViewWriter}, which has its own connection.
 */
public final class ViewStore implements ViewReader, AutoCloseable {
  /** Timeout of one Redis command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final RedisClient client;
  private final RedisURI uri;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  /**
   * Connections that carry {@link #rowsWithSchemaAsync} reads, at most this many. Each has its own lettuce
   * I/O thread (lettuce assigns connections to its threads round robin), which decodes the replies; with one,
   * that thread was the busiest of the query-service in the serving profile.
   */
  public static final int READ_CONNECTIONS = 2;

  private final long rowCacheBytes;
  private final ViewSchemas schemas;
  private final ReadConnections reads;
  private final RedisViewReader reader;

  private ViewStore(RedisClient client, RedisURI uri, long rowCacheBytes) {
    this.client = client;
    this.uri = uri;
    this.rowCacheBytes = rowCacheBytes;
    this.connection = client.connect();
    this.redis = connection.sync();
    this.schemas = new ViewSchemas(connection);
    this.reads = new ReadConnections(client, uri, rowCacheBytes);
    this.reader = new RedisViewReader(connection, schemas, reads);
  }

  /**
   * Connect to Redis.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}
   * @return the store
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   */
  public static ViewStore connect(String redisUri) {
    return connect(redisUri, DEFAULT_ROW_CACHE_BYTES);
  }

  /**
   * Connect to Redis with a row cache of the given size on each read connection (see {@link ReadConnection}:
   * a cached row is answered after a shared {@code PING}, exactly as a fresh {@code HGETALL} would be).
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}
   * @param rowCacheBytes most bytes of rows cached per read connection (estimated heap bytes; there are at
   *     most {@link #READ_CONNECTIONS} plus one per event loop given to {@link #readOnEventLoops}); 0 turns
   *     the cache off. Values that readers derive from cached rows ({@link ViewReader.Rows#derived}; the
   *     query-service keeps up to three rendered replies per row, each about the row's size) are kept with
   *     them and not counted.
   * @return the store
   * @throws IllegalArgumentException if {@code rowCacheBytes} is negative
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   */
  public static ViewStore connect(String redisUri, long rowCacheBytes) {
    if (rowCacheBytes < 0) {
      throw new IllegalArgumentException("row cache size must be at least 0 bytes, got " + rowCacheBytes);
    }
    RedisURI uri = RedisURI.create(redisUri);
    uri.setTimeout(DEFAULT_COMMAND_TIMEOUT);
    return new ViewStore(RedisClient.create(uri), uri, rowCacheBytes);
  }

  /** Row cache of each read connection by default, estimated heap bytes (16 MiB). Ours. */
  public static final long DEFAULT_ROW_CACHE_BYTES = 16L * 1024 * 1024;

  /**
   * Open a writer for one version of a view, on its own connection.
   *
   * @param name the view
   * @param version the version the writer fills
   * @return the writer; close it when done
   */
  public ViewWriter writer(ViewName name, int version) {
    return new ViewWriter(client.connect(), name, version);
  }

  /**
   * The reads of this store's views (the store's {@link ViewReader} methods delegate to it).
   *
   * @return the reader; closed with the store
   */
  public RedisViewReader reader() {
    return reader;
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
   * @throws io.lettuce.core.RedisException if Redis cannot be reached or refuses the script
   */
  public boolean serve(ViewName name, int version) {
    // A version's recorded shape never changes, so reading it first and writing it in the script is exact.
    List<KeyValue<String, String>> shape = redis.hmget(RedisKeys.meta(name, version), "columns", "key_columns");
    boolean known = shape.get(0).hasValue() && shape.get(1).hasValue();
    String[] args = known
        ? new String[] {Integer.toString(version), shape.get(0).getValue(), shape.get(1).getValue()}
        : new String[] {Integer.toString(version)};
    Long served = redis.eval(RedisScripts.SERVE, io.lettuce.core.ScriptOutputType.INTEGER,
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

  @Override
  public Optional<ViewName> rollbackTarget(ViewName name) {
    return reader.rollbackTarget(name);
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

  @Override
  public Optional<VirtualState> virtualState(ViewName name) {
    return reader.virtualState(name);
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
    Map<String, String> fields = new java.util.HashMap<>(Map.of("phase", ViewPhase.COMPLETE.name(),
        "updated_at_ms", Long.toString(System.currentTimeMillis())));
    if (applied != null) {
      fields.put("backfill_target_events", applied);
    }
    redis.hset(RedisKeys.meta(name, 1), fields);
    serve(name, 1);
  }

  /** Same as {@link RedisViewReader#snapshot(ViewName, int)}. */
  public Snapshot snapshot(ViewName name, int version) {
    return reader.snapshot(name, version);
  }

  /**
   * An exact state of a view version.
   *
   * @param position last applied message ID text per partition (empty when nothing applied)
   * @param eventsApplied events folded into it
   * @param rows row key to row (column to value text), sorted by row key
   */
  public record Snapshot(List<String> position, long eventsApplied, Map<String, Map<String, String>> rows) {}

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

  /** Same as {@link RedisViewReader#servedVersion(ViewName)}. */
  public int servedVersion(ViewName name) {
    return reader.servedVersion(name);
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

  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    return reader.row(name, rowKey);
  }

  /** Same as {@link RedisViewReader#row(ViewName, int, String)}. */
  public Optional<Map<String, String>> row(ViewName name, int version, String rowKey) {
    return reader.row(name, version, rowKey);
  }

  /**
   * Return the newest version that has metadata (the one the current job fills).
   *
   * @param name the view
   * @return the version, or 0 when none exists
   */
  public int latestVersion(ViewName name) {
    int latest = 0;
    for (int v = Math.max(1, servedVersion(name)); v < Math.max(1, servedVersion(name)) + 100; v++) {
      if (redis.exists(RedisKeys.meta(name, v)) == 0) {
        break;
      }
      latest = v;
    }
    return latest;
  }

  @Override
  public List<Optional<Map<String, String>>> rows(ViewName name, List<String> rowKeys) {
    return reader.rows(name, rowKeys);
  }

  @Override
  public Rows rowsWithSchema(ViewName name, List<String> rowKeys) {
    return reader.rowsWithSchema(name, rowKeys);
  }

  @Override
  public CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
    return reader.rowsWithSchemaAsync(name, rowKeys);
  }

  @Override
  public void flushReads() {
    reader.flushReads();
  }

  /** Same as {@link RedisViewReader#readCounts()}. */
  public long[] readCounts() {
    return reader.readCounts();
  }

  @Override
  public AutoCloseable readOnEventLoops(io.netty.channel.EventLoopGroup loops) {
    return reader.readOnEventLoops(loops);
  }

  @Override
  public Optional<ViewSchema> schema(ViewName name) {
    return reader.schema(name);
  }

  /** Same as {@link RedisViewReader#schema(ViewName, int)}. */
  public Optional<ViewSchema> schema(ViewName name, int version) {
    return reader.schema(name, version);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name) {
    return reader.metadata(name);
  }

  @Override
  public Optional<ViewMetadata> liveMetadata(ViewName name) {
    return reader.liveMetadata(name);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name, int version) {
    return reader.metadata(name, version);
  }

  @Override
  public List<String> views(String tenant) {
    return reader.views(tenant);
  }

  @Override
  public ScanPage scan(String tenant, String cursor, long count) {
    return reader.scan(tenant, cursor, count);
  }

  /**
   * Tell whether an error comes from Redis (unreachable, timed out, or refused a command).
   *
   * @param error any error
   * @return true for lettuce's {@link io.lettuce.core.RedisException} and its subclasses
   */
  public static boolean isRedisFailure(Throwable error) {
    return error instanceof io.lettuce.core.RedisException;
  }

  /**
   * Say what a Redis failure means to a user: the view store did not answer, and why, without the name of the
   * internal command it happened in (lettuce prefixes e.g. {@code EVALSHA. } to a timeout in a script call).
   *
   * @param error a Redis failure ({@link #isRedisFailure})
   * @return e.g. {@code the view store (Redis) did not answer: Command timed out after 10 second(s)}
   */
  public static String describeRedisFailure(Throwable error) {
    String message = String.valueOf(error.getMessage()).replaceFirst("^[A-Z]+\\. ", "");
    return "the view store (Redis) did not answer: " + message;
  }

  /** Close the connection and the client. */
  @Override
  public void close() {
    reads.close();
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
