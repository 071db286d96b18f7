package dev.streamfold.views;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads of materialized views in Redis, as {@link ViewStore#reader()} hands them out: rows (one atomic script,
 * or a plain {@code HGETALL} at a served version a read connection remembers), their shapes, metadata, the
 * views of a tenant and a scan of their rows. Blocking reads go over the store's shared connection; {@link
 * #rowsWithSchemaAsync} over the calling thread's read connection (see {@link ReadConnections}). Thread-safe.
 */
public final class RedisViewReader implements ViewReader {
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final ViewSchemas schemas;
  private final ReadConnections reads;
  /** One-row reads answered by a plain HGETALL at a remembered served version (see {@link ReadConnection}). */
  private final LongAdder rowReads = new LongAdder();
  /** Reads answered by the rows script. */
  private final LongAdder scriptReads = new LongAdder();
  /** SHA-1 of the rows script as Redis returned it from SCRIPT LOAD (for the blocking reads); null until then. */
  private volatile String rowsScriptSha;

  RedisViewReader(StatefulRedisConnection<String, String> connection, RedisCommands<String, String> redis,
      ViewSchemas schemas, ReadConnections reads) {
    this.connection = connection;
    this.redis = redis;
    this.schemas = schemas;
    this.reads = reads;
  }

  /** One script reads the served version (following a rollback) and the row: atomic for readers. */
  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    return rows(name, List.of(rowKey)).get(0);
  }

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
      replies = redis.evalsha(rowsScriptSha, ScriptOutputType.MULTI, keys, args);
    } catch (RedisFailures.ScriptNotCached flushed) {
      rowsScriptSha = redis.scriptLoad(RedisScripts.ROWS);
      replies = redis.evalsha(rowsScriptSha, ScriptOutputType.MULTI, keys, args);
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
   * connection (one of {@link ViewStore#READ_CONNECTIONS}, used by these reads only), whose commands lettuce holds
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
      if (cause instanceof RedisNoScriptException) {
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

  private static String[] rowsArgs(ViewName name, List<String> rowKeys) {
    String[] args = new String[rowKeys.size() + 2];
    args[0] = name.tenant();
    args[1] = name.view();
    for (int i = 0; i < rowKeys.size(); i++) {
      args[i + 2] = rowKeys.get(i);
    }
    return args;
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
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
   * @throws ViewStoreException if Redis cannot be reached
   */
  @Override
  public AutoCloseable readOnEventLoops(EventLoopGroup loops) {
    return reads.readOnEventLoops(loops);
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
    for (ReadConnection read : reads.all()) {
      resolves += read.resolves();
      cacheHits += read.cacheHits();
    }
    return new long[] {rowReads.sum(), scriptReads.sum(), resolves, cacheHits};
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

  private Map<String, String> inSchemaOrder(ViewName name, int version, Map<String, String> hash) {
    return RowDecoding.inSchemaOrder(schemas.schema(name, version), hash);
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
  public ViewStore.Snapshot snapshot(ViewName name, int version) {
    List<Object> reply = redis.eval(RedisScripts.SNAPSHOT, ScriptOutputType.MULTI,
        new String[] {RedisKeys.meta(name, version), RedisKeys.keys(name, version)},
        RedisKeys.versionPrefix(name, version) + RedisKeys.ROW_INFIX);
    String position = reply.get(0) == null ? "" : String.valueOf(reply.get(0));
    long events = reply.get(1) == null ? 0 : Long.parseLong(String.valueOf(reply.get(1)));
    String clockPosition = reply.get(2) == null ? "" : String.valueOf(reply.get(2));
    Map<String, Map<String, String>> rows = new TreeMap<>();
    for (int i = 3; i + 1 < reply.size(); i += 2) {
      rows.put(String.valueOf(reply.get(i)), RowDecoding.pairs(reply.get(i + 1)));
    }
    return new ViewStore.Snapshot(PositionVector.parse(position), events, rows, ClockPosition.parse(clockPosition));
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

  @Override
  public Optional<ViewName> rollbackTarget(ViewName name) {
    String target = redis.hget(RedisKeys.view(name), "rollback");
    return target == null ? Optional.empty() : Optional.of(new ViewName(name.tenant(), target));
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
   * The shape of one version, as recorded by {@link ViewCatalog#defineVersion}; the view's registered shape for a
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
}
