package dev.streamfold.transforms.fold;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A column of a Java transformation's view.
 *
 * @param name column name: a letter or {@code _}, then letters, digits or {@code _} (at most 128)
 * @param type one of {@code STRING}, {@code BIGINT}, {@code INT}, {@code DOUBLE}, {@code BOOLEAN},
 *     {@code TIMESTAMP}, or {@code ARRAY<T>} of one of these but TIMESTAMP (stored as a JSON array text;
 *     GET renders it as a JSON array)
 */
public record Column(String name, String type) {
  /** Scalar column types. */
  public static final Set<String> SCALAR_TYPES = Set.of("STRING", "BIGINT", "INT", "DOUBLE", "BOOLEAN", "TIMESTAMP");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /**
   * Create a column.
   *
   * @throws IllegalArgumentException if the name or type is not one of the allowed forms (the message
   *     names the column and what is allowed)
   */
  public Column {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid column name '" + name
          + "': a letter or _, then letters, digits or _ (at most 128)");
    }
    type = type == null ? "" : type.trim().toUpperCase(Locale.ROOT).replace(" ", "");
    String element = elementType(type);
    if (!SCALAR_TYPES.contains(type) && (element == null || !SCALAR_TYPES.contains(element) || element.equals("TIMESTAMP"))) {
      throw new IllegalArgumentException("column '" + name + "' has unsupported type '" + type + "': use one of "
          + new java.util.TreeSet<>(SCALAR_TYPES) + " or ARRAY<T> of one of them but TIMESTAMP");
    }
  }

  /** A {@code STRING} column. */
  public static Column string(String name) {
    return new Column(name, "STRING");
  }

  /** A {@code BIGINT} column (64-bit integer). */
  public static Column bigint(String name) {
    return new Column(name, "BIGINT");
  }

  /** An {@code INT} column (32-bit integer). */
  public static Column integer(String name) {
    return new Column(name, "INT");
  }

  /** A {@code DOUBLE} column. */
  public static Column doubleColumn(String name) {
    return new Column(name, "DOUBLE");
  }

  /** A {@code BOOLEAN} column. */
  public static Column bool(String name) {
    return new Column(name, "BOOLEAN");
  }

  /** A {@code TIMESTAMP} column (millisecond precision, UTC). */
  public static Column timestamp(String name) {
    return new Column(name, "TIMESTAMP");
  }

  /** An {@code ARRAY<elementType>} column, e.g. {@code array("last_delays", "BIGINT")}. */
  public static Column array(String name, String elementType) {
    return new Column(name, "ARRAY<" + elementType + ">");
  }

  /**
   * The element type of an array type.
   *
   * @param type a normalized type text
   * @return {@code T} of {@code ARRAY<T>}, or null when the type is not an array
   */
  public static String elementType(String type) {
    return type.startsWith("ARRAY<") && type.endsWith(">") ? type.substring(6, type.length() - 1) : null;
  }
}
