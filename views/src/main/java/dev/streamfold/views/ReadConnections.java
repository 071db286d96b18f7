package dev.streamfold.views;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The read connections of {@link ViewStore#rowsWithSchemaAsync}, and which thread uses which: the store's
 * own, at most {@link ViewStore#READ_CONNECTIONS} (opened on first use, handed to threads round robin), and
 * one per event loop given to {@link #readOnEventLoops}, used by that loop's thread. A thread keeps its
 * connection, so its reads and its flushes go to the same one. Thread-safe.
 */
final class ReadConnections implements AutoCloseable {
  private final RedisClient client;
  private final RedisURI uri;
  private final long rowCacheBytes;
  /** The store's own read connections, auto-flush off; an entry is null until first used. */
  private final ReadConnection[] readConnections = new ReadConnection[ViewStore.READ_CONNECTIONS];
  private int nextReadConnection;
  /** The read connection of each thread that started reads: its reads and its flushes go to the same one. */
  private final ThreadLocal<ReadConnection> threadReads = ThreadLocal.withInitial(this::assignReadConnection);
  /** Read connections whose channel is on an event loop given to {@link #readOnEventLoops}, by that loop's thread. */
  private final Map<Thread, ReadConnection> loopReads = new ConcurrentHashMap<>();

  /**
   * Open read connections on demand.
   *
   * @param client the store's client, which opens the store's own read connections
   * @param uri where it connects (a client of the event loops connects there too)
   * @param rowCacheBytes row cache of each read connection (see {@link ReadConnection})
   */
  ReadConnections(RedisClient client, RedisURI uri, long rowCacheBytes) {
    this.client = client;
    this.uri = uri;
    this.rowCacheBytes = rowCacheBytes;
  }

  /** The calling thread's read connection, assigned on its first read. */
  ReadConnection forThread() {
    return threadReads.get();
  }

  /** Every open read connection, the event loops' and the store's own. */
  List<ReadConnection> all() {
    List<ReadConnection> all = new ArrayList<>(loopReads.values());
    synchronized (this) {
      for (ReadConnection reads : readConnections) {
        if (reads != null) {
          all.add(reads);
        }
      }
    }
    return all;
  }

  /** See {@link ViewStore#readOnEventLoops}. */
  AutoCloseable readOnEventLoops(EventLoopGroup loops) {
    Class<? extends EventLoopGroup> lettuceLoops = Transports.eventLoopGroupClass();
    if (!lettuceLoops.isInstance(loops)) {
      throw new IllegalArgumentException("read connections can share only event loops of lettuce's transport ("
          + lettuceLoops.getSimpleName() + "), not " + loops.getClass().getSimpleName());
    }
    int count = 0;
    for (EventExecutor ignored : loops) {
      count++;
    }
    ClientResources resources = ClientResources.builder()
        .eventLoopGroupProvider(new SharedEventLoops(loops, count)).build();
    RedisClient loopClient = RedisClient.create(resources, uri);
    loopClient.setOptions(client.getOptions());
    Map<Thread, ReadConnection> opened = new HashMap<>();
    try {
      for (int attempt = 0; attempt < 4 * count && opened.size() < count; attempt++) {
        StatefulRedisConnection<String, String> connection = loopClient.connect();
        CompletableFuture<Thread> loop = new CompletableFuture<>();
        connection.async().ping().whenComplete((pong, error) -> loop.complete(Thread.currentThread()));
        Thread thread = loop.get(ViewStore.DEFAULT_COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (thread == Thread.currentThread() || opened.containsKey(thread)) {
          connection.close();
        } else {
          opened.put(thread, new ReadConnection(loopClient, connection, rowCacheBytes));
        }
      }
    } catch (Exception e) {
      opened.values().forEach(ReadConnection::close);
      loopClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown();
      if (e instanceof RuntimeException runtime) {
        throw RedisFailures.translate(runtime);
      }
      throw new ViewStoreException("could not open read connections on the event loops", e);
    }
    loopReads.putAll(opened);
    return () -> {
      opened.keySet().forEach(loopReads::remove);
      opened.values().forEach(ReadConnection::close);
      loopClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    };
  }

  /** Hands lettuce event loops it does not own: never shuts them down (their owner does). */
  private record SharedEventLoops(EventLoopGroup loops, int size)
      implements EventLoopGroupProvider {
    @Override
    @SuppressWarnings("unchecked")
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
      if (!type.isInstance(loops)) {
        throw new IllegalArgumentException("lettuce asked for " + type + "; the shared loops are " + loops.getClass());
      }
      return (T) loops;
    }

    @Override
    public int threadPoolSize() {
      return size;
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup group,
        long quietPeriod, long timeout, TimeUnit unit) {
      return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout,
        TimeUnit unit) {
      return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }
  }

  /**
   * Give a thread its read connection: the one on its event loop (see {@link #readOnEventLoops}), else the
   * store's read connections round robin, each opened on first use.
   */
  private synchronized ReadConnection assignReadConnection() {
    ReadConnection onLoop = loopReads.get(Thread.currentThread());
    if (onLoop != null) {
      return onLoop;
    }
    int i = nextReadConnection;
    nextReadConnection = (i + 1) % ViewStore.READ_CONNECTIONS;
    if (readConnections[i] == null) {
      readConnections[i] = new ReadConnection(client, RedisFailures.connect(client), rowCacheBytes);
    }
    return readConnections[i];
  }

  /** Close the store's own read connections (the event loops' are closed by their handle). */
  @Override
  public void close() {
    synchronized (this) {
      for (ReadConnection reads : readConnections) {
        if (reads != null) {
          reads.close();
        }
      }
    }
  }
}
