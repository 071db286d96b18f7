package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
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
import java.util.function.BiFunction;

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
  private final java.util.concurrent.atomic.LongAdder resolves = new java.util.concurrent.atomic.LongAdder();
  private final io.lettuce.core.AbstractRedisClient client;

  /**
   * Wrap a fresh connection: turn tracking on (waits for Redis, at most the command timeout), then turn
   * auto-flush off. Without RESP3 (Redis before 6) or when {@code CLIENT TRACKING} fails, every read goes
   * through the script.
   *
   * @param client the client that opened {@code connection} (for its reconnect events)
   * @param connection a new connection of that client, auto-flush on
   */
  ReadConnection(io.lettuce.core.AbstractRedisClient client, StatefulRedisConnection<String, String> connection) {
    this.client = client;
    this.connection = connection;
    this.async = connection.async();
    connection.addListener(message -> {
      if ("invalidate".equals(message.getType())) {
        generation.incrementAndGet();
      }
    });
    this.reconnects = new RedisConnectionStateListener() {
      @Override
      public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        if (handler == connection) {
          tracking = false;
          generation.incrementAndGet();
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
   * What {@code view} serves, if this connection knows it at the current generation.
   *
   * @param view the view
   * @return its served version and shape, or null when unknown or possibly changed
   */
  Served served(ViewName view) {
    Served known = served.get(view);
    return known != null && tracking && known.generation() == generation.get() ? known : null;
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
   * Queue {@code HGETALL key}: the row's fields and values, flat, in Redis's order (empty when absent).
   *
   * @param key a row key ({@link RedisKeys#row})
   * @return the flat field/value array
   */
  CompletionStage<String[]> hgetall(String key) {
    synchronized (this) {
      return async.dispatch(CommandType.HGETALL, new FlatOutput(), new CommandArgs<>(StringCodec.UTF8).addKey(key));
    }
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

  /** Send the queued commands in one write. */
  void flush() {
    connection.flushCommands();
  }

  @Override
  public void close() {
    client.removeListener(reconnects);
    connection.close();
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
