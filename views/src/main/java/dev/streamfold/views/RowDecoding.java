package dev.streamfold.views;

import dev.streamfold.views.ViewReader.Rows;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Rows from Redis replies (flat field/value arrays), with their columns in schema order. */
final class RowDecoding {
  /** Rows with at most this many columns are put in schema order by scanning, wider ones through a hash map. */
  private static final int SCAN_COLUMNS_UP_TO = 16;

  private RowDecoding() {}

  /** A hash from a flat field/value array of a script's reply; empty when {@code flat} is not an array. */
  static Map<String, String> pairs(Object flat) {
    Map<String, String> hash = new LinkedHashMap<>();
    if (flat instanceof List<?> list) {
      for (int j = 0; j + 1 < list.size(); j += 2) {
        hash.put(String.valueOf(list.get(j)), String.valueOf(list.get(j + 1)));
      }
    }
    return hash;
  }

  /** As many absent rows as {@code rowKeys}: what a view that serves nothing returns. */
  static Rows emptyRows(List<String> rowKeys, Optional<ViewSchema> schema) {
    List<Optional<Map<String, String>>> result = new ArrayList<>(rowKeys.size());
    rowKeys.forEach(k -> result.add(Optional.empty()));
    return new Rows(schema, result);
  }

  /** The rows of a sync rows-script reply ({source view, version, row 1, ...}), in schema order. */
  static Rows parseRows(List<Object> replies, List<String> rowKeys, Optional<ViewSchema> schema) {
    List<Optional<Map<String, String>>> result = new ArrayList<>(rowKeys.size());
    for (int i = 0; i < rowKeys.size(); i++) {
      Object flat = i + 2 < replies.size() ? replies.get(i + 2) : null;
      Map<String, String> hash = pairs(flat);
      result.add(hash.isEmpty() ? Optional.empty() : Optional.of(inSchemaOrder(schema, hash)));
    }
    return new Rows(schema, result);
  }

  /** The rows of one flat row array, with an unmodifiable row map (shared by the reads of a cached row). */
  static Rows sharedRows(String[] flat, Optional<ViewSchema> schema) {
    return new Rows(schema, List.of(flat.length < 2 ? Optional.empty()
        : Optional.of(Collections.unmodifiableMap(inSchemaOrder(schema, flat)))), new ViewReader.Derived());
  }

  /** Rows from flat field/value arrays, in schema order; a missing or empty array is an absent row. */
  static Rows rows(List<String[]> flats, int rowKeys, Optional<ViewSchema> schema) {
    List<Optional<Map<String, String>>> result = new ArrayList<>(rowKeys);
    for (int i = 0; i < rowKeys; i++) {
      String[] flat = i < flats.size() ? flats.get(i) : null;
      result.add(flat == null || flat.length < 2 ? Optional.empty() : Optional.of(inSchemaOrder(schema, flat)));
    }
    return new Rows(schema, result);
  }

  /**
   * A row from a flat field/value array: the schema's columns in schema order (the columns the row has), or
   * the array's order without a schema. Fields of the row that the schema does not name are left out, as
   * {@link #inSchemaOrder(Optional, Map)} does.
   */
  static Map<String, String> inSchemaOrder(Optional<ViewSchema> schema, String[] flat) {
    Map<String, String> ordered = new LinkedHashMap<>();
    if (schema.isEmpty()) {
      for (int j = 0; j + 1 < flat.length; j += 2) {
        ordered.put(flat[j], flat[j + 1]);
      }
      return ordered;
    }
    if (flat.length > 2 * SCAN_COLUMNS_UP_TO) {
      Map<String, String> hash = new HashMap<>();
      for (int j = 0; j + 1 < flat.length; j += 2) {
        hash.put(flat[j], flat[j + 1]);
      }
      return inSchemaOrder(schema, hash);
    }
    for (String column : schema.get().columns().keySet()) {
      // a row has few columns: finding each in the array is cheaper than hashing them (last one wins, like a map)
      for (int j = flat.length - 2; j >= 0; j -= 2) {
        if (column.equals(flat[j])) {
          if (flat[j + 1] != null) {
            ordered.put(column, flat[j + 1]);
          }
          break;
        }
      }
    }
    return ordered;
  }

  /** A row with the schema's columns in schema order (those the row has); the row itself without a schema. */
  static Map<String, String> inSchemaOrder(Optional<ViewSchema> schema, Map<String, String> hash) {
    if (schema.isEmpty()) {
      return hash;
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    for (String column : schema.get().columns().keySet()) {
      String value = hash.get(column);
      if (value != null) {
        ordered.put(column, value);
      }
    }
    return ordered;
  }
}
