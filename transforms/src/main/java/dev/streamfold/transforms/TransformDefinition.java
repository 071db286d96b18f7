package dev.streamfold.transforms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A transformation as the catalog stores it (JSON in the tenant's {@code system/transforms} compacted
 * topic, keyed by name): Flink SQL, or a Java fold ({@link dev.streamfold.transforms.fold.Transformation})
 * from a jar kept in the ledger.
 *
 * @param tenant tenant name
 * @param name transformation name, also its view's name
 * @param sql Flink SQL over one or more streams; null for a Java transformation
 * @param sourceStream the stream the transformation reads; for one over several streams, the first of
 *     {@code streams} (use {@link #readsSeveralStreams} before treating it as the only one)
 * @param keyColumns the view's row-key columns, in order
 * @param columns result column name to SQL type, in result order
 * @param version the view version the current job fills (1, 2, ...; a rebuild takes the next)
 * @param createdAtMs creation time, epoch milliseconds
 * @param foldClass the Java transformation's class; null for SQL
 * @param jarSha256 SHA-256 (lower-case hex) of the jar holding {@code foldClass}, stored in the ledger
 *     (see {@code Ledger.putArtifact}); null for SQL
 * @param streams every stream the transformation reads, sorted by name: {@code [sourceStream]} for one stream
 *     (also when a catalog entry stored before views over several streams has none)
 * @param clockOrdered whether its job reads its streams in the tenant clock's order, and its view commits at ticks:
 *     always for several streams; for one partitioned stream when the SQL computes event-time windows (the clock
 *     gives its partitions one order for the watermark); false in catalog entries stored before it existed
 */
public record TransformDefinition(String tenant, String name, String sql, String sourceStream,
    List<String> keyColumns, LinkedHashMap<String, String> columns, int version, long createdAtMs,
    String foldClass, String jarSha256, List<String> streams, boolean clockOrdered) {

  public TransformDefinition {
    streams = streams == null || streams.isEmpty() ? List.of(sourceStream) : List.copyOf(new TreeSet<>(streams));
    clockOrdered = clockOrdered || streams.size() > 1;
    if (!streams.contains(sourceStream)) {
      throw new IllegalArgumentException("source stream '" + sourceStream + "' is not one of the streams read " + streams);
    }
  }

  /** A transformation over one stream. */
  public TransformDefinition(String tenant, String name, String sql, String sourceStream, List<String> keyColumns,
      LinkedHashMap<String, String> columns, int version, long createdAtMs, String foldClass, String jarSha256) {
    this(tenant, name, sql, sourceStream, keyColumns, columns, version, createdAtMs, foldClass, jarSha256, null, false);
  }

  /** A SQL transformation over one stream. */
  public TransformDefinition(String tenant, String name, String sql, String sourceStream, List<String> keyColumns,
      LinkedHashMap<String, String> columns, int version, long createdAtMs) {
    this(tenant, name, sql, sourceStream, keyColumns, columns, version, createdAtMs, null, null, null, false);
  }

  /**
   * A SQL transformation over the streams a plan reads (one or several).
   *
   * @param streams the streams read (at least one)
   * @param clockOrdered whether its job reads in the tenant clock's order (implied by several streams)
   * @return the definition, its {@code sourceStream} the first of {@code streams} by name
   */
  public static TransformDefinition sql(String tenant, String name, String sql, List<String> streams,
      List<String> keyColumns, LinkedHashMap<String, String> columns, int version, long createdAtMs,
      boolean clockOrdered) {
    return new TransformDefinition(tenant, name, sql, new TreeSet<>(streams).first(), keyColumns, columns, version,
        createdAtMs, null, null, streams, clockOrdered);
  }

  /**
   * Whether its job reads in the tenant clock's order ({@link #clockOrdered}): its view's position is a tick and
   * its replays stop at ticks, also when it reads one stream.
   */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean readsInClockOrder() {
    return clockOrdered;
  }

  /** Whether the transformation reads several streams (in the tenant clock's order; its view commits at ticks). */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean readsSeveralStreams() {
    return streams.size() > 1;
  }

  /**
   * Return a copy with another version.
   *
   * @param newVersion the version
   * @return the copy
   */
  public TransformDefinition withVersion(int newVersion) {
    return new TransformDefinition(tenant, name, sql, sourceStream, keyColumns, columns, newVersion, createdAtMs,
        foldClass, jarSha256, streams, clockOrdered);
  }

  /** Whether this is a Java transformation (a fold from a jar) rather than SQL. */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isFold() {
    return foldClass != null;
  }

  /**
   * What the transformation computes, as one text: the SQL, or {@code fold <class> (jar sha256:<hex>)}.
   * Two versions with equal logic give equal views; virtual states record it.
   */
  public String logic() {
    return isFold() ? "fold " + foldClass + " (jar sha256:" + jarSha256 + ")" : sql;
  }

  /** Result columns with their types, in order. */
  public Map<String, String> columnTypes() {
    return columns;
  }
}
