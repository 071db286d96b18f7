package dev.streamfold.transforms.training;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a training set, in order: {@code message_id} (STRING, the label event's message ID),
 * {@code event_time} (TIMESTAMP, the label event's event time, UTC), {@code entity} (STRING), {@code label}
 * (the label expression's SQL type), then one column per feature with its view column's SQL type. SQL
 * types are Streamfold's names (STRING, BIGINT, INT, DOUBLE, BOOLEAN, TIMESTAMP, DATE, DECIMAL).
 *
 * @param names column names in order
 * @param types SQL type per column, same order
 */
public record TrainingSetColumns(List<String> names, List<String> types) implements Serializable {

  /**
   * Assemble the columns.
   *
   * @param labelType SQL type of the label
   * @param features output name to SQL type of each feature, in order
   * @return the columns
   */
  public static TrainingSetColumns of(String labelType, LinkedHashMap<String, String> features) {
    List<String> names = new ArrayList<>(List.of("message_id", "event_time", "entity", "label"));
    List<String> types = new ArrayList<>(List.of("STRING", "TIMESTAMP", "STRING", labelType));
    for (Map.Entry<String, String> f : features.entrySet()) {
      names.add(f.getKey());
      types.add(f.getValue());
    }
    return new TrainingSetColumns(List.copyOf(names), List.copyOf(types));
  }

  /**
   * The columns of a training set from a labels file: the file's columns as they are, then one per feature.
   *
   * @param file the file's columns, in order
   * @param features output name to SQL type of each feature, in order
   * @return the columns
   */
  public static TrainingSetColumns of(List<dev.streamfold.schema.StreamColumn> file, LinkedHashMap<String, String> features) {
    List<String> names = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (dev.streamfold.schema.StreamColumn column : file) {
      names.add(column.name());
      types.add(column.type());
    }
    names.addAll(features.keySet());
    types.addAll(features.values());
    return new TrainingSetColumns(List.copyOf(names), List.copyOf(types));
  }

  /** Number of columns. */
  public int size() {
    return names.size();
  }
}
