package dev.streamfold.views;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One of {@link ViewStore}'s read connections, which remembers which version each view serves, so that
 * a one-row read is a plain {@code HGETALL} of the row instead of the rows script, and stays exactly as
 * atomic as the script.
 *
 * <p>How the remembered version is kept exact: the connection speaks RESP3 and has Redis's client-side
 * caching on in OPTIN mode ({@code CLIENT TRACKING ON OPTIN}; <a
 * href="https://redis.io/docs/latest/develop/reference/client-side-caching/">Redis client-side caching</a>).
 * The view hash ({@code served_version}, {@code rollback}) is read with {@code CLIENT CACHING YES} just
 * before, so Redis tracks that key for this connection and, when any client changes it (serve, rollback,
 * resume, define, delete, FLUSHALL), writes an {@code invalidate} push message into this connection's
 * reply stream at the moment the change executes. Redis runs commands one at a time, so a row read that
 * executes after the change has its reply behind that message on the same connection; lettuce decodes a
 * connection's stream in order on one thread and calls push listeners inline, so the {@link #generation}
 * counter is incremented before the row read's future completes. A row read is therefore taken only when
 * the generation at its completion is the one at which the version was read; otherwise it is read again
 * through the script. Any invalidation on the connection (of any view) and every disconnect start a new
 * generation: conservative, and changes of a view hash are rare (a serve, a rollback, a schema change).
 *
 * <p>Rows of remembered versions are also kept in a bounded cache ({@link #rows}), filled by row reads sent
 * with {@code CLIENT CACHING YES}, so Redis tracks each cached row key too and writes an {@code invalidate}
 * push naming it, in the same reply stream, when a commit (or anything else) changes or deletes it; the push
 * listener drops those keys from the cache without starting a new generation (only pushes naming other keys,
 * i.e. view hashes, and pushes naming no key, i.e. FLUSHALL or a full tracking table, do; the latter also
 * empty the cache). A cached row is answered only after a {@link #barrier} sent after the read arrived has
 * come back: every push that Redis wrote before executing it, i.e. for every change that completed before the
 * read arrived, has then been applied, so a cached answer is exactly what an {@code HGETALL} sent at that
 * moment returns. One barrier ({@code PING}) serves all reads of a connection between two flushes, so a
 * burst of reads costs Redis one {@code PING} instead of one {@code HGETALL} each.
 *
 * <p>Views rolled back to a virtual state, views that serve nothing yet, and reads of several rows (which
 * must come from one commit) keep using the script. Every command on this connection is queued through
 * this class under its lock, so nothing can slip between {@code CLIENT CACHING YES} and the read it
 * applies to. The connection's auto-flush is off (see {@link ViewStore#flushReads()}). Thread-safe.
 */
final class ReadConnection implements AutoCloseable {
  /**
   * What a view served when its hash was read at {@code generation}.
   *
   * @param version the served version; 0 when the view serves nothing or is rolled back (read through the script)
   * @param schema the shape of that version
   * @param generation the generation at which the view hash was read
   */
  record Served(int version, Optional<ViewSchema> schema, long generation) {
    /** True when a one-row read may be a plain HGETALL of {@code version}'s row. */
    boolean byRow() {
      return version > 0;
    }
  }

  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> async;
  /** Incremented by every invalidation message and every disconnect (and reconnect). */
  private final AtomicLong generation = new AtomicLong();
  /** True while tracking is on for the current TCP connection (RESP3 and {@code CLIENT TRACKING} acknowledged). */
  private volatile boolean tracking;
  private final Map<ViewName, Served> served = new ConcurrentHashMap<>();
  /** Views whose hash is being read, so that a burst of reads starts one. */
  private final Set<ViewName> resolving = ConcurrentHashMap.newKeySet();
  private final RedisConnectionStateListener reconnects;
  /** Tracked reads of a view hash started by {@link #resolve}. */
  private final LongAdder resolves = new LongAdder();
  private final AbstractRedisClient client;
  /**
   * Cached rows of remembered versions: row key ({@link RedisKeys#row}) to its flat field/value array as
   * {@code HGETALL} returned it (empty when the row was absent); null when caching is off. See the class
   * comment for why an entry is exact.
   */
  private final Cache<String, RowRead> rows;
  /** The {@code PING} queued since the last flush that cached reads wait for, or null (guarded by this). */
  private CompletableFuture<Void> barrier;
  /** Rows answered from {@link #rows}. */
  private final LongAdder cacheHits = new LongAdder();

  /**
   * Wrap a fresh connection: turn tracking on (waits for Redis, at most the command timeout), then turn
   * auto-flush off. Without RESP3 (Redis before 6) or when {@code CLIENT TRACKING} fails, every read goes
   * through the script.
   *
   * @param client the client that opened {@code connection} (for its reconnect events)
   * @param connection a new connection of that client, auto-flush on
   * @param rowCacheBytes most bytes of rows to cache (estimated: 2 bytes per char plus 64 per row and 16 per
   *     text); 0 turns the row cache off
   * @throws IllegalArgumentException if {@code rowCacheBytes} is negative
   */
  ReadConnection(AbstractRedisClient client, StatefulRedisConnection<String, String> connection,
      long rowCacheBytes) {
    if (rowCacheBytes < 0) {
      throw new IllegalArgumentException("row cache size must be at least 0 bytes, got " + rowCacheBytes);
    }
    this.client = client;
    this.connection = connection;
    this.async = connection.async();
    this.rows = rowCacheBytes == 0 ? null : Caffeine.newBuilder()
        .maximumWeight(rowCacheBytes)
        .<String, RowRead>weigher((key, read) -> weight(key, read.flat()))
        .executor(Runnable::run) // evict on the calling thread, no ForkJoinPool task per write
        .build();
    connection.addListener(message -> {
      if ("invalidate".equals(message.getType())) {
        invalidated(message.getContent(StringCodec.UTF8::decodeKey));
      }
    });
    this.reconnects = new RedisConnectionStateListener() {
      @Override
      public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        if (handler == connection) {
          tracking = false;
          generation.incrementAndGet();
          if (rows != null) {
            rows.invalidateAll(); // Redis forgets what this connection tracked
          }
        }
      }

      @Override
      public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        if (handler == connection && !tracking) {
          startTracking();
        }
      }
    };
    client.addListener(reconnects);
    try {
      String info = connection.sync().clientInfo();
      if (info != null && info.contains(" resp=3")) {
        connection.sync().clientTracking(TrackingArgs.Builder.enabled().optin());
        generation.incrementAndGet();
        tracking = true;
      }
    } catch (RuntimeException e) {
      tracking = false; // reads go through the script
    }
    connection.setAutoFlushCommands(false);
  }

  /** After a reconnect: tracking on again, asynchronously; until Redis acknowledges, reads use the script. */
  private void startTracking() {
    CompletionStage<String> info;
    synchronized (this) {
      info = async.clientInfo();
      connection.flushCommands();
    }
    info.thenCompose(text -> {
      if (text == null || !text.contains(" resp=3")) {
        return CompletableFuture.completedFuture("no RESP3");
      }
      CompletionStage<String> on;
      synchronized (this) {
        on = async.clientTracking(TrackingArgs.Builder.enabled().optin());
        connection.flushCommands();
      }
      return on.thenApply(ok -> {
        generation.incrementAndGet();
        tracking = true;
        return ok;
      });
    });
  }

  /**
   * Apply an {@code invalidate} push: {@code [invalidate, keys]}, keys null when Redis dropped everything
   * this connection tracked (FLUSHALL, FLUSHDB, a full tracking table).
   */
  private void invalidated(List<Object> content) {
    Object keys = content.size() > 1 ? content.get(1) : null;
    if (!(keys instanceof List<?> list)) {
      generation.incrementAndGet();
      if (rows != null) {
        rows.invalidateAll();
      }
      return;
    }
    boolean other = false;
    for (Object key : list) {
      String text = String.valueOf(key);
      if (RedisKeys.isRow(text)) {
        if (rows != null) {
          rows.invalidate(text);
        }
      } else {
        other = true; // a view hash: what a view serves may have changed
      }
    }
    if (other) {
      generation.incrementAndGet();
    }
  }

  /** Estimated heap bytes of a cached row. */
  private static int weight(String key, String[] flat) {
    long bytes = 64 + 16 + 2L * key.length();
    for (String text : flat) {
      bytes += 16 + (text == null ? 0 : 2L * text.length());
    }
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  /**
   * What {@code view} serves, if this connection knows it at the current generation.
   *
   * @param view the view
   * @return its served version and shape, or null when unknown or possibly changed
   */
  Served served(ViewName view) {
    Served known = served.get(view);
    return known != null && tracking && known.generation() == generation.get() ? known : null;
  }

  /** Rows answered from the row cache so far (for tests and benchmarks). */
  long cacheHits() {
    return cacheHits.sum();
  }

  /** Tracked reads of a view hash so far (for tests). */
  long resolves() {
    return resolves.sum();
  }

  /** The current generation (see the class comment). */
  long generation() {
    return generation.get();
  }

  /**
   * Start reading, with tracking, which version {@code view} serves, unless a read of it is running. When
   * the view serves a version of its own (not rolled back) and no invalidation arrived meanwhile, it is
   * remembered for {@link #served}. Queued like the reads (sent at the next flush).
   *
   * @param view the view
   * @param viewKey its view hash ({@link RedisKeys#view})
   * @param schemas the shape of a version of the view, without blocking
   */
  void resolve(ViewName view, String viewKey,
      BiFunction<ViewName, Integer, CompletionStage<Optional<ViewSchema>>> schemas) {
    if (!tracking || !resolving.add(view)) {
      return;
    }
    resolves.increment();
    long at = generation.get();
    CompletionStage<String> caching;
    CompletionStage<List<KeyValue<String, String>>> hash;
    synchronized (this) {
      caching = async.clientCaching(true);
      hash = async.hmget(viewKey, "served_version", "rollback");
    }
    caching.thenCombine(hash, (ok, fields) -> fields)
        .thenCompose(fields -> {
          if (!fields.get(0).hasValue() || fields.get(1).hasValue()) {
            // nothing served, or rolled back: remembered too (until the hash changes), read through the script
            return CompletableFuture.completedFuture(new Served(0, Optional.empty(), at));
          }
          int version = Integer.parseInt(fields.get(0).getValue());
          return schemas.apply(view, version).thenApply(schema -> new Served(version, schema, at));
        })
        .whenComplete((known, error) -> {
          if (known != null && generation.get() == at) {
            served.put(view, known);
          } else {
            served.remove(view);
          }
          resolving.remove(view);
        });
  }

  /**
   * Queue a read of one row of a remembered version: answered from the row cache after the next {@link
   * #barrier} when the row is cached, else by {@code HGETALL} (with {@code CLIENT CACHING YES}, and the
   * reply cached when no view hash changed meanwhile, on the I/O thread before any later push is applied).
   *
   * @param key a row key ({@link RedisKeys#row}) of {@code served}'s version
   * @param served what the view served when the read was started
   * @return the row as read (the same object for every read answered from the cache), or null when a view hash
   *     changed or the connection dropped before the row was read (the caller reads it through the script)
   */
  CompletionStage<RowRead> row(String key, Served served) {
    if (rows != null && rows.getIfPresent(key) != null) {
      return barrier().thenCompose(ignored -> {
        if (generation.get() != served.generation()) {
          return CompletableFuture.completedFuture(null);
        }
        RowRead cached = rows.getIfPresent(key);
        if (cached != null) {
          cacheHits.increment();
          return CompletableFuture.completedFuture(cached);
        }
        CompletionStage<RowRead> read = hgetall(key, served); // changed since: read it (on the I/O thread)
        flush();
        return read;
      });
    }
    return hgetall(key, served);
  }

  private CompletionStage<RowRead> hgetall(String key, Served served) {
    CompletableFuture<RowRead> result = new CompletableFuture<>();
    synchronized (this) {
      // The callback is attached under the lock that flush() takes, so before the reply can arrive: it runs on
      // the I/O thread as the reply is decoded, before any push behind the reply is applied.
      if (rows != null) {
        async.clientCaching(true);
      }
      async.dispatch(CommandType.HGETALL, new FlatOutput(), new CommandArgs<>(StringCodec.UTF8).addKey(key))
          .whenComplete((flat, error) -> {
            if (error != null) {
              result.completeExceptionally(error);
            } else if (generation.get() != served.generation()) {
              result.complete(null);
            } else {
              RowRead read = new RowRead(flat);
              if (rows != null && tracking) {
                rows.put(key, read);
              }
              result.complete(read);
            }
          });
    }
    return result;
  }

  /**
   * A {@code PING} queued after every command queued so far: when it completes, every push Redis wrote
   * before executing it has been applied (one reply stream, decoded in order). Shared by all callers until
   * the next {@link #flush}.
   */
  private synchronized CompletableFuture<Void> barrier() {
    if (barrier == null) {
      CompletableFuture<Void> next = new CompletableFuture<>();
      async.dispatch(CommandType.PING, new StatusOutput<>(StringCodec.UTF8),
          new CommandArgs<>(StringCodec.UTF8)).whenComplete((pong, error) -> {
            if (error != null) {
              next.completeExceptionally(error);
            } else {
              next.complete(null);
            }
          });
      barrier = next;
    }
    return barrier;
  }

  /**
   * Queue any other command on this connection (the rows script).
   *
   * @param type the command
   * @param output its output
   * @param args its arguments
   * @return its result
   */
  <T> CompletionStage<T> dispatch(CommandType type, CommandOutput<String, String, T> output,
      CommandArgs<String, String> args) {
    synchronized (this) {
      return async.dispatch(type, output, args);
    }
  }

  /** Send the queued commands in one write; reads started after this wait for a new barrier. */
  void flush() {
    synchronized (this) {
      barrier = null;
      connection.flushCommands();
    }
  }

  @Override
  public void close() {
    client.removeListener(reconnects);
    connection.close();
  }

  /**
   * One row as {@code HGETALL} returned it, and what a reader built from it, kept with the cached row so that
   * reads answered from the cache build it once (a row of one version always has that version's shape).
   * Thread-safe: two readers may build it at once and keep either result.
   */
  static final class RowRead {
    private final String[] flat;
    private volatile Built built;

    private record Built(Object shape, Object value) {}

    RowRead(String[] flat) {
      this.flat = flat;
    }

    /** The row's flat field/value array in Redis's order, empty when the row is absent; do not modify it. */
    String[] flat() {
      return flat;
    }

    /**
     * What {@code build} makes of this row for {@code shape}, built at most once per shape (compared by
     * identity) while the row stays cached.
     *
     * @param shape what the result depends on besides the row (the served version's schema)
     * @param build makes the result from the flat array; its result must not be modified afterwards
     * @return the result
     */
    @SuppressWarnings("unchecked")
    <T> T built(Object shape, Function<String[], T> build) {
      Built known = built;
      if (known == null || known.shape() != shape) {
        known = new Built(shape, build.apply(flat));
        built = known;
      }
      return (T) known.value();
    }
  }

  /** A flat array of the strings of a reply (an HGETALL map, in RESP2 or RESP3). */
  private static final class FlatOutput extends CommandOutput<String, String, String[]> {
    private final List<String> values = new ArrayList<>();

    FlatOutput() {
      super(StringCodec.UTF8, null);
    }

    @Override
    public void set(ByteBuffer bytes) {
      values.add(bytes == null ? null : codec.decodeValue(bytes));
    }

    @Override
    public String[] get() {
      return values.toArray(new String[0]);
    }
  }
}
