package dev.streamfold.views;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Materialized views in one Redis server (layout in {@link RedisKeys}). Owns one Redis client and hands out
 * the roles that use it: {@link #reader()}, the reads the query-service serves; {@link #catalog()}, the
 * catalog operations of the transform manager; {@link #writer}, the commits of rows of one version (on a
 * connection of its own). The store's own methods are one-line delegations to them. The reader and the
 * catalog share one connection, plus up to {@link #READ_CONNECTIONS} for {@link #rowsWithSchemaAsync}
 * (opened on first use, auto-flush off, see {@link #flushReads()}); thread-safe. Redis failures throw
 * {@link ViewStoreException}.
 */
public final class ViewStore implements ViewReader, AutoCloseable {
  /** Timeout of one Redis command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);
  /**
   * Connections that carry {@link #rowsWithSchemaAsync} reads, at most this many. Each has its own lettuce
   * I/O thread (lettuce assigns connections to its threads round robin), which decodes the replies; with one,
   * that thread was the busiest of the query-service in the serving profile.
   */
  public static final int READ_CONNECTIONS = 2;
  /** Row cache of each read connection by default, estimated heap bytes (16 MiB). Ours. */
  public static final long DEFAULT_ROW_CACHE_BYTES = 16L * 1024 * 1024;

  private final RedisClient client;
  /** Shared by the blocking reads and the catalog; auto-flush on. */
  private final StatefulRedisConnection<String, String> connection;
  private final ReadConnections reads;
  private final RedisViewReader reader;
  private final ViewCatalog catalog;

  private ViewStore(RedisClient client, RedisURI uri, long rowCacheBytes) {
    this.client = client;
    this.connection = RedisFailures.connect(client);
    RedisCommands<String, String> redis = RedisFailures.translating(connection.sync());
    ViewSchemas schemas = new ViewSchemas(connection, redis);
    this.reads = new ReadConnections(client, uri, rowCacheBytes);
    this.reader = new RedisViewReader(connection, redis, schemas, reads);
    this.catalog = new ViewCatalog(redis, schemas, reader);
  }

  /**
   * Connect to Redis.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}
   * @return the store
   * @throws ViewStoreException if Redis cannot be reached
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
   * @throws ViewStoreException if Redis cannot be reached
   */
  public static ViewStore connect(String redisUri, long rowCacheBytes) {
    if (rowCacheBytes < 0) {
      throw new IllegalArgumentException("row cache size must be at least 0 bytes, got " + rowCacheBytes);
    }
    RedisURI uri = RedisURI.create(redisUri);
    uri.setTimeout(DEFAULT_COMMAND_TIMEOUT);
    return new ViewStore(RedisClient.create(uri), uri, rowCacheBytes);
  }

  /**
   * Open a writer for one version of a view, on its own connection.
   *
   * @param name the view
   * @param version the version the writer fills
   * @return the writer; close it when done
   * @throws ViewStoreException if Redis cannot be reached
   */
  public ViewWriter writer(ViewName name, int version) {
    return new ViewWriter(RedisFailures.connect(client), name, version);
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
   * The catalog of this store's views, for the transform manager (the store's catalog methods delegate to it).
   *
   * @return the catalog; closed with the store
   */
  public ViewCatalog catalog() {
    return catalog;
  }

  /** Same as {@link ViewCatalog#define(ViewName, ViewSchema)}. */
  public void define(ViewName name, ViewSchema schema) {
    catalog.define(name, schema);
  }

  /** Same as {@link ViewCatalog#defineVersion(ViewName, int, ViewSchema)}. */
  public void defineVersion(ViewName name, int version, ViewSchema schema) {
    catalog.defineVersion(name, version, schema);
  }

  /** Same as {@link ViewCatalog#serve(ViewName, int)}. */
  public boolean serve(ViewName name, int version) {
    return catalog.serve(name, version);
  }

  /** Same as {@link ViewCatalog#rollback(ViewName, ViewName)}. */
  public void rollback(ViewName name, ViewName virtualState) {
    catalog.rollback(name, virtualState);
  }

  /** Same as {@link ViewCatalog#resume(ViewName)}. */
  public boolean resume(ViewName name) {
    return catalog.resume(name);
  }

  /** Same as {@link ViewCatalog#defineVirtualState(VirtualState, ViewSchema)}. */
  public void defineVirtualState(VirtualState state, ViewSchema schema) {
    catalog.defineVirtualState(state, schema);
  }

  /** Same as {@link ViewCatalog#completeVirtualState(ViewName)}. */
  public void completeVirtualState(ViewName name) {
    catalog.completeVirtualState(name);
  }

  /** Same as {@link ViewCatalog#dropVersion(ViewName, int)}. */
  public void dropVersion(ViewName name, int version) {
    catalog.dropVersion(name, version);
  }

  /** Same as {@link ViewCatalog#fail(ViewName, int, String)}. */
  public void fail(ViewName name, int version, String error) {
    catalog.fail(name, version, error);
  }

  /** Same as {@link ViewCatalog#drop(ViewName)}. */
  public void drop(ViewName name) {
    catalog.drop(name);
  }

  /** Same as {@link ViewCatalog#latestVersion(ViewName)}. */
  public int latestVersion(ViewName name) {
    return catalog.latestVersion(name);
  }

  @Override
  public Optional<ViewName> rollbackTarget(ViewName name) {
    return reader.rollbackTarget(name);
  }

  @Override
  public Optional<VirtualState> virtualState(ViewName name) {
    return reader.virtualState(name);
  }

  /** Same as {@link RedisViewReader#snapshot(ViewName, int)}. */
  public Snapshot snapshot(ViewName name, int version) {
    return reader.snapshot(name, version);
  }

  /** Same as {@link RedisViewReader#servedVersion(ViewName)}. */
  public int servedVersion(ViewName name) {
    return reader.servedVersion(name);
  }

  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    return reader.row(name, rowKey);
  }

  /** Same as {@link RedisViewReader#row(ViewName, int, String)}. */
  public Optional<Map<String, String>> row(ViewName name, int version, String rowKey) {
    return reader.row(name, version, rowKey);
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
  public AutoCloseable readOnEventLoops(EventLoopGroup loops) {
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
   * An exact state of a view version.
   *
   * @param position last applied message ID per partition (empty when nothing applied)
   * @param eventsApplied events folded into it
   * @param rows row key to row (column to value text), sorted by row key
   * @param clockPosition a view over several streams: the tick committed and its vectors of the streams read
   *     ({@link ClockPosition#NONE} for a view over one stream)
   */
  public record Snapshot(PositionVector position, long eventsApplied, Map<String, Map<String, String>> rows,
      ClockPosition clockPosition) {}

  /**
   * Tell whether an error comes from Redis (unreachable, timed out, or refused a command).
   *
   * @param error any error
   * @return true for a {@link ViewStoreException}, and for the Redis client's own exceptions (those of a failed
   *     {@link #rowsWithSchemaAsync} stage)
   */
  public static boolean isRedisFailure(Throwable error) {
    return error instanceof ViewStoreException || error instanceof RedisException;
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
