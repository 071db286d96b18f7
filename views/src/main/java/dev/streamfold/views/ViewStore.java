package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

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
  /** One-row reads answered by a plain HGETALL at a remembered served version (see {@link ReadConnection}). */
  private final java.util.concurrent.atomic.LongAdder rowReads = new java.util.concurrent.atomic.LongAdder();
  /** Reads answered by the rows script. */
  private final java.util.concurrent.atomic.LongAdder scriptReads = new java.util.concurrent.atomic.LongAdder();

  private final long rowCacheBytes;
  private final ViewSchemas schemas;
  private final ReadConnections reads;

  private ViewStore(RedisClient client, RedisURI uri, long rowCacheBytes) {
    this.client = client;
    this.uri = uri;
    this.rowCacheBytes = rowCacheBytes;
    this.connection = client.connect();
    this.redis = connection.sync();
    this.schemas = new ViewSchemas(connection);
    this.reads = new ReadConnections(client, uri, rowCacheBytes);
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
    String target = redis.hget(RedisKeys.view(name), "rollback");
    return target == null ? Optional.empty() : Optional.of(new ViewName(name.tenant(), target));
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
    Map<String, String> hash = redis.hgetall(RedisKeys.view(name));
    if (hash == null || !VirtualState.KIND.equals(hash.get("kind"))) {
      return Optional.empty();
    }
    return Optional.of(VirtualState.fromHash(name, hash));
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

  /**
   * Read every row and the position of one version in one atomic script: the exact state at that
   * position (for checks, exports and comparisons; the script holds Redis while it runs, so not for
   * large views on a busy server).
   *
   * @param name the view
   * @param version the version
   * @return the snapshot; no rows and an empty position when the version does not exist
   */
  public Snapshot snapshot(ViewName name, int version) {
    List<Object> reply = redis.eval(RedisScripts.SNAPSHOT, io.lettuce.core.ScriptOutputType.MULTI,
        new String[] {RedisKeys.meta(name, version), RedisKeys.keys(name, version)},
        RedisKeys.versionPrefix(name, version) + RedisKeys.ROW_INFIX);
    String position = reply.get(0) == null ? "" : String.valueOf(reply.get(0));
    long events = reply.get(1) == null ? 0 : Long.parseLong(String.valueOf(reply.get(1)));
    Map<String, Map<String, String>> rows = new java.util.TreeMap<>();
    for (int i = 2; i + 1 < reply.size(); i += 2) {
      rows.put(String.valueOf(reply.get(i)), RowDecoding.pairs(reply.get(i + 1)));
    }
    return new Snapshot(position.isEmpty() ? List.of() : List.of(position.split(",")), events, rows);
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

  /**
   * Return the served version.
   *
   * @param name the view
   * @return the version, or 0 when none is served or the view does not exist
   */
  public int servedVersion(ViewName name) {
    String v = redis.hget(RedisKeys.view(name), "served_version");
    return v == null ? 0 : Integer.parseInt(v);
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

  /** One script reads the served version (following a rollback) and the row: atomic for readers. */
  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    return rows(name, List.of(rowKey)).get(0);
  }

  /**
   * Read one row of a given version (served or still building), e.g. to check a view at a crash point.
   *
   * @param name the view
   * @param version the version
   * @param rowKey the row key
   * @return the row in schema order, or empty when absent
   */
  public Optional<Map<String, String>> row(ViewName name, int version, String rowKey) {
    Map<String, String> hash = redis.hgetall(RedisKeys.row(name, version, rowKey));
    return hash == null || hash.isEmpty() ? Optional.empty() : Optional.of(inSchemaOrder(name, version, hash));
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

  private volatile String rowsScriptSha;
  @Override
  public List<Optional<Map<String, String>>> rows(ViewName name, List<String> rowKeys) {
    return rowsWithSchema(name, rowKeys).rows();
  }

  @Override
  public Rows rowsWithSchema(ViewName name, List<String> rowKeys) {
    String[] args = rowsArgs(name, rowKeys);
    String[] keys = {RedisKeys.view(name)};
    if (rowsScriptSha == null) {
      rowsScriptSha = redis.scriptLoad(RedisScripts.ROWS);
    }
    List<Object> replies;
    try {
      replies = redis.evalsha(rowsScriptSha, io.lettuce.core.ScriptOutputType.MULTI, keys, args);
    } catch (io.lettuce.core.RedisNoScriptException flushed) {
      rowsScriptSha = redis.scriptLoad(RedisScripts.ROWS);
      replies = redis.evalsha(rowsScriptSha, io.lettuce.core.ScriptOutputType.MULTI, keys, args);
    }
    if (replies.size() < 2) {
      return RowDecoding.emptyRows(rowKeys, schemas.viewSchema(name));
    }
    ViewName source = new ViewName(name.tenant(), String.valueOf(replies.get(0)));
    int version = Integer.parseInt(String.valueOf(replies.get(1)));
    return RowDecoding.parseRows(replies, rowKeys, schemas.schema(source, version));
  }

  /**
   * The same script as {@link #rowsWithSchema}, queued without waiting on the calling thread's read
   * connection (one of {@link #READ_CONNECTIONS}, used by these reads only), whose commands lettuce holds
   * until {@link #flushReads()} (auto-flush off): the reads a thread starts between two flushes go to Redis
   * in one write and come back in one read. The script goes by its SHA-1 (EVALSHA); when Redis does
   * not know it (NOSCRIPT, e.g. after SCRIPT FLUSH or a restart) it is sent once in full (EVAL, which also
   * caches it). A shape not cached yet is read with one more asynchronous HMGET. Nothing here blocks, so
   * the stage may complete on lettuce's I/O thread.
   *
   * <p>A one-row read of a view whose served version the read connection remembers (see {@link
   * ReadConnection}: Redis client-side caching tells it, in order with the replies, when the view hash
   * changes) is a plain {@code HGETALL} of the row instead: cheaper for Redis and to decode, and the same
   * answer the script gives at the moment the row is read. The version is remembered after the first
   * read of the view on that connection; a rolled-back view is always read through the script.
   */
  @Override
  public CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
    ReadConnection reads = this.reads.forThread();
    if (rowKeys.size() == 1) {
      ReadConnection.Served served = reads.served(name);
      if (served == null) {
        reads.resolve(name, RedisKeys.view(name), schemas::schemaAsync);
      } else if (served.byRow()) {
        String rowKey = rowKeys.get(0);
        Optional<ViewSchema> schema = served.schema();
        return reads.row(RedisKeys.row(name, served.version(), rowKey), served).thenCompose(read -> {
          if (read != null) {
            rowReads.increment();
            // built once per cached row: the reply is shared by every read of it, so its row map is unmodifiable
            return CompletableFuture.completedFuture(read.built(schema, flat -> RowDecoding.sharedRows(flat, schema)));
          }
          // the view hash changed before the row was read, or the connection dropped: read it atomically
          CompletionStage<Rows> again = scriptRead(reads, name, rowKeys);
          reads.flush();
          return again;
        });
      }
    }
    return scriptRead(reads, name, rowKeys);
  }

  /**
   * Queue the rows script on {@code reads}: the served version (following a rollback) and the rows, atomically.
   *
   * @param reads the calling thread's read connection
   * @param name the view
   * @param rowKeys the row keys
   * @return the rows and their shape
   */
  private CompletionStage<Rows> scriptRead(ReadConnection reads, ViewName name, List<String> rowKeys) {
    scriptReads.increment();
    String key = RedisKeys.view(name);
    CompletionStage<RowsScriptOutput.Reply> bySha = reads.dispatch(CommandType.EVALSHA,
        new RowsScriptOutput(rowKeys.size()), scriptArgs(RedisScripts.ROWS_SHA1, key, name, rowKeys));
    CompletionStage<RowsScriptOutput.Reply> sent = bySha.<CompletionStage<RowsScriptOutput.Reply>>handle((reply, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(reply);
      }
      Throwable cause = unwrap(error);
      if (cause instanceof io.lettuce.core.RedisNoScriptException) {
        return connection.async().dispatch(CommandType.EVAL, new RowsScriptOutput(rowKeys.size()),
            scriptArgs(RedisScripts.ROWS, key, name, rowKeys));
      }
      return CompletableFuture.<RowsScriptOutput.Reply>failedFuture(cause);
    }).thenCompose(stage -> stage);
    return sent.thenCompose(reply -> {
      if (!reply.served()) {
        return schemas.viewSchemaAsync(name).thenApply(schema -> RowDecoding.emptyRows(rowKeys, schema));
      }
      // the name was validated by the caller; a rollback target is a view name the server stored
      ViewName source = reply.source().equals(name.view()) ? name : new ViewName(name.tenant(), reply.source());
      int version = Integer.parseInt(reply.version());
      ViewSchema cached = schemas.cached(source, version);
      if (cached != null) {
        return CompletableFuture.completedFuture(RowDecoding.rows(reply.rows(), rowKeys.size(), Optional.of(cached)));
      }
      return schemas.schemaAsync(source, version).thenApply(schema -> RowDecoding.rows(reply.rows(), rowKeys.size(), schema));
    });
  }

  /** EVALSHA/EVAL arguments of {@link RedisScripts#ROWS}: script or SHA-1, 1 key, tenant, view, row keys. */
  private static CommandArgs<String, String> scriptArgs(String scriptOrSha, String viewKey, ViewName name,
      List<String> rowKeys) {
    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(scriptOrSha).add(1).addKey(viewKey)
        .addValue(name.tenant()).addValue(name.view());
    for (String rowKey : rowKeys) {
      args.addValue(rowKey);
    }
    return args;
  }

  /**
   * Send the reads that this thread queued with {@link #rowsWithSchemaAsync} since the last flush, in one
   * write (with those of other threads that share its read connection).
   */
  @Override
  public void flushReads() {
    reads.forThread().flush();
  }

  /**
   * How the reads of {@link #rowsWithSchemaAsync} were answered so far (for tests and benchmarks).
   *
   * @return {one-row reads answered at a remembered version (by a plain HGETALL or from the row cache), reads
   *     answered by the rows script, tracked reads of a view hash (what a view serves), one-row reads answered
   *     from the row cache}
   */
  public long[] readCounts() {
    long resolves = 0;
    long cacheHits = 0;
    for (ReadConnection connection : reads.all()) {
      resolves += connection.resolves();
      cacheHits += connection.cacheHits();
    }
    return new long[] {rowReads.sum(), scriptReads.sum(), resolves, cacheHits};
  }

  /**
   * Open one read connection on each of {@code loops} (a second lettuce client whose I/O threads are those
   * loops): a read started on a loop thread then goes out, comes back, is decoded and completes on that one
   * thread. Lettuce registers each new connection on the group's next loop; a connection's loop is found from
   * the thread that completes a PING on it, and connections are opened until every loop has one (at most four
   * per loop). Call it before the loops start reads, from a thread that is not one of them (it waits for
   * Redis). A loop left without a connection, or a thread that is not a loop, uses the store's own read
   * connections.
   *
   * @param loops Netty event loops of the transport lettuce uses (lettuce's {@code Transports.eventLoopGroupClass()}:
   *     an {@code EpollEventLoopGroup} when Netty's native epoll transport is on the class path and available,
   *     else a {@code NioEventLoopGroup}); the caller owns them
   * @return a handle that closes these connections and the second client; close it before shutting the loops down
   * @throws IllegalArgumentException if {@code loops} are not of the transport lettuce uses
   * @throws io.lettuce.core.RedisException if Redis cannot be reached
   */
  @Override
  public AutoCloseable readOnEventLoops(io.netty.channel.EventLoopGroup loops) {
    return reads.readOnEventLoops(loops);
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
  }

  private static String[] rowsArgs(ViewName name, List<String> rowKeys) {
    String[] args = new String[rowKeys.size() + 2];
    args[0] = name.tenant();
    args[1] = name.view();
    for (int i = 0; i < rowKeys.size(); i++) {
      args[i + 2] = rowKeys.get(i);
    }
    return args;
  }

  private Map<String, String> inSchemaOrder(ViewName name, int version, Map<String, String> hash) {
    return RowDecoding.inSchemaOrder(schemas.schema(name, version), hash);
  }

  /**
   * The shape readers of a view see now: that of the served version (or of the virtual state served in
   * its place), else the view's registered shape.
   */
  @Override
  public Optional<ViewSchema> schema(ViewName name) {
    ViewName source = rollbackTarget(name).orElse(name);
    int version = servedVersion(source);
    if (version > 0) {
      Optional<ViewSchema> versioned = schemas.schema(source, version);
      if (versioned.isPresent()) {
        return versioned;
      }
    }
    return schemas.viewSchema(name);
  }

  /**
   * The shape of one version, as recorded by {@link #defineVersion}; the view's registered shape for a
   * version recorded without one.
   *
   * @param name the view
   * @param version the version
   * @return the shape, or empty when neither exists
   */
  public Optional<ViewSchema> schema(ViewName name, int version) {
    return schemas.schema(name, version);
  }

  /** Metadata of what reads of the view return: its served version, or the virtual state it is rolled back to. */
  @Override
  public Optional<ViewMetadata> metadata(ViewName name) {
    ViewName source = rollbackTarget(name).orElse(name);
    int version = servedVersion(source);
    return version == 0 ? Optional.empty() : metadata(source, version);
  }

  @Override
  public Optional<ViewMetadata> liveMetadata(ViewName name) {
    int version = servedVersion(name);
    return version == 0 ? Optional.empty() : metadata(name, version);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name, int version) {
    // No MULTI here: the connection is shared by every reader thread, and a transaction on a shared
    // connection would take in other threads' commands. The row count may lag the metadata by a commit.
    Map<String, String> hash = redis.hgetall(RedisKeys.meta(name, version));
    if (hash == null || hash.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ViewMetadata.fromHash(version, hash, redis.scard(RedisKeys.keys(name, version))));
  }

  @Override
  public List<String> views(String tenant) {
    List<String> names = new ArrayList<>(redis.smembers(RedisKeys.tenantViews(ViewName.checkTenant(tenant))));
    names.sort(null);
    return names;
  }

  @Override
  public ScanPage scan(String tenant, String cursor, long count) {
    if (!cursor.matches("[0-9]+")) {
      throw new IllegalArgumentException("invalid cursor '" + cursor + "'");
    }
    var page = redis.scan(ScanCursor.of(cursor),
        ScanArgs.Builder.matches(RedisKeys.allRowsPattern(ViewName.checkTenant(tenant))).limit(Math.max(1, count)));
    Map<String, Integer> served = new HashMap<>();
    List<String> keys = new ArrayList<>();
    for (String redisKey : page.getKeys()) {
      String[] parts = RedisKeys.parseRow(tenant, redisKey);
      if (parts == null) {
        continue;
      }
      int version = served.computeIfAbsent(parts[0], v -> {
        try {
          return servedVersion(new ViewName(tenant, v));
        } catch (IllegalArgumentException malformed) {
          return 0;
        }
      });
      if (Integer.toString(version).equals(parts[1])) {
        keys.add(parts[0] + ":" + parts[2]);
      }
    }
    return new ScanPage(page.getCursor(), keys);
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
