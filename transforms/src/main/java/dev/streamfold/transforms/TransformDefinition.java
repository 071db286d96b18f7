package dev.streamfold.transforms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A transformation as the catalog stores it (JSON in the tenant's {@code system/transforms} compacted
 * topic, keyed by name).
 *
 * @param tenant tenant name
 * @param name transformation name, also its view's name
 * @param sql Flink SQL over one stream
 * @param sourceStream the stream the SQL reads
 * @param keyColumns the view's row-key columns, in order
 * @param columns result column name to SQL type, in result order
 * @param version the view version the current job fills (1, 2, ...; a rebuild takes the next)
 * @param createdAtMs creation time, epoch milliseconds
 */
public record TransformDefinition(String tenant, String name, String sql, String sourceStream,
    List<String> keyColumns, LinkedHashMap<String, String> columns, int version, long createdAtMs) {

  /**
   * Return a copy with another version.
   *
   * @param newVersion the version
   * @return the copy
   */
  public TransformDefinition withVersion(int newVersion) {
    return new TransformDefinition(tenant, name, sql, sourceStream, keyColumns, columns, newVersion, createdAtMs);
  }

  /** Result columns with their types, in order. */
  public Map<String, String> columnTypes() {
    return columns;
  }
}
