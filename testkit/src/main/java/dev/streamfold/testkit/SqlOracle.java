package dev.streamfold.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * An oracle we did not write: DuckDB, in memory, over tables of the events a test appended. A test loads each
 * stream's events as a table (the stream's columns, in Streamfold's types), runs the view's SQL, and compares
 * every row with the view. Not thread-safe; close it.
 */
public final class SqlOracle implements AutoCloseable {
  private final Connection connection;
  private final Path scratch;

  private SqlOracle(Connection connection, Path scratch) {
    this.connection = connection;
    this.scratch = scratch;
  }

  /** Open an empty in-memory database. */
  public static SqlOracle open() {
    try {
      return new SqlOracle(DriverManager.getConnection("jdbc:duckdb:"), Files.createTempDirectory("sql-oracle"));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open DuckDB in memory: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Create a table and load rows into it (through a CSV file that DuckDB reads).
   *
   * @param name the table name, e.g. the stream's name
   * @param columns {@code name:TYPE} in Streamfold's types (STRING, INT, BIGINT, DOUBLE, BOOLEAN, TIMESTAMP)
   * @param rows one list of values per row, in column order ({@code toString()} of each; null for NULL)
   * @return this oracle
   */
  public SqlOracle table(String name, List<String> columns, List<List<?>> rows) {
    Path csv = scratch.resolve(name + ".csv");
    StringBuilder types = new StringBuilder();
    List<String> names = new ArrayList<>();
    for (String column : columns) {
      String[] parts = column.split(":", 2);
      names.add(parts[0]);
      types.append(types.length() == 0 ? "" : ", ").append('\'').append(parts[0]).append("': '")
          .append(duckType(parts[1])).append('\'');
    }
    try (CSVPrinter out = new CSVPrinter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8),
        CSVFormat.DEFAULT.builder().setHeader(names.toArray(String[]::new)).setNullString("\\N").get())) {
      for (List<?> row : rows) {
        out.printRecord(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    execute("CREATE OR REPLACE TABLE " + name + " AS SELECT * FROM read_csv('" + csv + "', header = true, "
        + "nullstr = '\\N', columns = {" + types + "})");
    return this;
  }

  private static String duckType(String type) {
    return switch (type.toUpperCase(java.util.Locale.ROOT)) {
      case "STRING" -> "VARCHAR";
      case "INT" -> "INTEGER";
      case "BIGINT", "DOUBLE", "BOOLEAN", "TIMESTAMP" -> type.toUpperCase(java.util.Locale.ROOT);
      default -> throw new IllegalArgumentException("no DuckDB type for Streamfold type " + type);
    };
  }

  /** Run a statement. */
  public void execute(String sql) {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB refused: " + sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * Run a query and key its rows.
   *
   * @param sql the query
   * @param keyColumn the column that identifies a row (as the view's key)
   * @return each row's columns (the key column included) by the key's text, sorted by key; values as JDBC
   *     returns them (Long, Double, BigDecimal, String, ...)
   * @throws IllegalStateException if DuckDB refuses the query, or two rows have the same key
   */
  public Map<String, Map<String, Object>> rows(String sql, String keyColumn) {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
          row.put(meta.getColumnLabel(c), rs.getObject(c));
        }
        String key = String.valueOf(row.get(keyColumn));
        if (rows.put(key, row) != null) {
          throw new IllegalStateException("two rows with " + keyColumn + " = " + key + " from: " + sql);
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB refused: " + sql + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
      try (var files = Files.list(scratch)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(scratch);
    } catch (SQLException | IOException e) {
      throw new IllegalStateException("cannot close the SQL oracle: " + e.getMessage(), e);
    }
  }
}
