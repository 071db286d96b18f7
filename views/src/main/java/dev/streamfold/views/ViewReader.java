package dev.streamfold.views;

import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Read access to a tenant's materialized views, as the query-service serves them. Thread-safe. */
public interface ViewReader {

  /**
   * Read one row of the served version of a view.
   *
   * @param name the view
   * @param rowKey the row key (multi-column keys joined with {@link ViewSchema#KEY_SEPARATOR})
   * @return column to value text in result order (null columns are absent); empty when the view or
   *     the row does not exist
   */
  Optional<Map<String, String>> row(ViewName name, String rowKey);

  /**
   * Read several rows of one view at one moment: all from the same served version and the same commit
   * (one atomic Redis script), so rows updated by the same events always agree.
   *
   * @param name the view
   * @param rowKeys the row keys
   * @return one entry per key, in order: the row, or empty when absent (all empty when the view does
   *     not exist)
   */
  default List<Optional<Map<String, String>>> rows(ViewName name, List<String> rowKeys) {
    List<Optional<Map<String, String>>> result = new ArrayList<>();
    for (String key : rowKeys) {
      result.add(row(name, key));
    }
    return result;
  }

  /**
   * Rows of one view read at one moment, with the shape of the version they were read from.
   *
   * @param schema the shape of the version (or virtual state) the rows come from; empty when the view
   *     does not exist
   * @param rows one entry per requested key, in order: the row (column to value text, possibly unmodifiable: a
   *     cached row is shared by the reads of it), or empty when absent
   * @param shared values derived from these rows, kept while the rows are shared by many reads (a row answered
   *     from {@link ViewStore}'s row cache: the same {@code Rows} for every read until the row changes); null
   *     when the rows belong to one read. Not part of equality.
   */
  record Rows(Optional<ViewSchema> schema, List<Optional<Map<String, String>>> rows, Derived shared) {
    /** Rows that belong to one read ({@link #shared} null). */
    public Rows(Optional<ViewSchema> schema, List<Optional<Map<String, String>>> rows) {
      this(schema, rows, null);
    }

    /**
     * A value computed from these rows (a reply rendered from them, say), made once while the rows are shared.
     *
     * @param key what is derived (compared with {@code equals}); one key, one kind of value
     * @param make computes the value from these rows; it must not modify them, and its value must not be
     *     modified afterwards when the rows are shared
     * @return the value: {@code make}'s, or the one made earlier for the same key while shared
     */
    @SuppressWarnings("unchecked")
    public <T> T derived(Object key, Supplier<T> make) {
      return shared == null ? make.get() : (T) shared.get(key, make);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Rows that && schema.equals(that.schema) && rows.equals(that.rows);
    }

    @Override
    public int hashCode() {
      return Objects.hash(schema, rows);
    }
  }

  /** Values derived from shared {@link Rows}, by key; thread-safe (two threads may both make a value, one is kept). */
  final class Derived {
    private final ConcurrentHashMap<Object, Object> values = new ConcurrentHashMap<>(4);

    Object get(Object key, Supplier<?> make) {
      Object known = values.get(key);
      if (known == null) {
        known = Objects.requireNonNull(make.get(), "derived value");
        Object first = values.putIfAbsent(key, known);
        if (first != null) {
          known = first;
        }
      }
      return known;
    }
  }

  /**
   * Like {@link #rows}, also returning the shape of the version the rows were read from (for typed
   * renderings such as JSON): one Redis round trip in {@link ViewStore}, where the shape is cached per
   * version.
   *
   * @param name the view
   * @param rowKeys the row keys
   * @return the rows and their shape
   */
  default Rows rowsWithSchema(ViewName name, List<String> rowKeys) {
    return new Rows(schema(name), rows(name, rowKeys));
  }

  /**
   * Start {@link #rowsWithSchema} without waiting for Redis: the same single read (one atomic script in
   * {@link ViewStore}). The read may be held back until {@link #flushReads()}, so that reads started one
   * after another reach Redis in one write (pipelined): the thread that started reads must call
   * {@link #flushReads()} soon after (e.g. once per event-loop turn), or they wait for someone else's flush
   * (at most the command timeout, then they fail). The stage completes on a Redis client thread; its continuations must
   * not block.
   *
   * <p>The default runs {@link #rowsWithSchema} in the calling thread and returns a completed stage: fine for
   * in-memory readers; a reader that blocks on I/O overrides it.
   *
   * @param name the view
   * @param rowKeys the row keys
   * @return the rows and their shape; completed exceptionally if the read fails (a failure of Redis is one that
   *     {@link ViewStore#isRedisFailure} recognises)
   */
  default CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
    try {
      return CompletableFuture.completedFuture(rowsWithSchema(name, rowKeys));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Send the reads that the calling thread started with {@link #rowsWithSchemaAsync} and that are held back,
   * in one write. The default does nothing (a reader that holds nothing back).
   */
  default void flushReads() {}

  /**
   * Move the connections of {@link #rowsWithSchemaAsync} onto the caller's Netty event loops, one per loop, so
   * that a read started on a loop is sent, answered and completed on that same thread (no hand-over between
   * threads). The default does nothing.
   *
   * @param loops the event loops that will start reads (e.g. a RESP server's I/O loops); the caller owns them
   *     and must close the returned handle before shutting them down
   * @return a handle that closes those connections (reads then use the reader's own connections again)
   */
  default AutoCloseable readOnEventLoops(EventLoopGroup loops) {
    return () -> {};
  }

  /**
   * Read the shape of a view.
   *
   * @param name the view
   * @return its schema, or empty when the view does not exist
   */
  Optional<ViewSchema> schema(ViewName name);

  /**
   * Read the metadata of what reads of a view return: its served version, or, while the view is rolled
   * back, the virtual state served in its place.
   *
   * @param name the view
   * @return its metadata, or empty when the view does not exist or serves no version yet
   */
  Optional<ViewMetadata> metadata(ViewName name);

  /**
   * Read the metadata of a view's own served version (what its job maintains), even while it is rolled
   * back to a virtual state.
   *
   * @param name the view
   * @return its metadata, or empty when the view does not exist or serves no version yet
   */
  default Optional<ViewMetadata> liveMetadata(ViewName name) {
    return metadata(name);
  }

  /**
   * Tell which virtual state a view serves in place of its own state (rollback).
   *
   * @param name the view
   * @return the virtual state, or empty when the view serves its own state
   */
  default Optional<ViewName> rollbackTarget(ViewName name) {
    return Optional.empty();
  }

  /**
   * Describe a virtual state.
   *
   * @param name a name
   * @return the description, or empty when {@code name} is not a virtual state
   */
  default Optional<VirtualState> virtualState(ViewName name) {
    return Optional.empty();
  }

  /**
   * Read the metadata of one version of a view (served or still building).
   *
   * @param name the view
   * @param version the version
   * @return its metadata, or empty when that version does not exist
   */
  Optional<ViewMetadata> metadata(ViewName name, int version);

  /**
   * List the views of a tenant.
   *
   * @param tenant tenant name
   * @return view names, sorted
   */
  List<String> views(String tenant);

  /**
   * Iterate over the rows of a tenant's views, like Redis SCAN: a full iteration started with cursor
   * "0" returns every row that exists from start to end at least once (rows may repeat); it is over
   * when the returned cursor is "0".
   *
   * @param tenant tenant name
   * @param cursor "0" to start, then the cursor of the previous page
   * @param count hint of how many underlying keys to visit (Redis SCAN COUNT), at least 1
   * @return client-visible keys {@code <view>:<rowKey>} of served versions, and the next cursor
   * @throws IllegalArgumentException if the cursor is not an unsigned decimal number
   */
  ScanPage scan(String tenant, String cursor, long count);

  /**
   * A page of a scan.
   *
   * @param cursor next cursor, "0" when the iteration is over
   * @param keys client-visible keys {@code <view>:<rowKey>}
   */
  record ScanPage(String cursor, List<String> keys) {}
}
