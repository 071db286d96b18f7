package dev.streamfold.transforms.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.transforms.TransformDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The manifest of a completed training set ({@code <output>.manifest.json}, pretty-printed JSON): its name,
 * tenant, label stream, entity, label and filter; the range folded (from earliest to the last message ID or
 * position vector read, the stop as given, the events read); each feature with its view, column, join, TTL and
 * the transformation version and SQL (or fold class) that computed it, and where it is cut; the output's columns and
 * types, rows, format, the command that built it and when. With it a training set can be rebuilt byte for byte.
 *
 * <p>The cut rule is {@code as-served}: a feature from a view over the label stream alone is cut just before the label
 * event in the label stream's ledger order ({@code "cut": "event"}); any other feature at the last tick of the tenant
 * clock before it ({@code "cut": "tick"}), and then the range records the last tick read ({@code range.tick}).
 */
final class TrainingSetManifest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrainingSetManifest() {}

  /**
   * Write the manifest of a completed build to {@code started.manifest()}.
   *
   * @param spec the training set
   * @param started its status (output, manifest path, stop message ID)
   * @param views the feature views' definitions as folded
   * @param columns the output's columns
   * @param events events folded
   * @param rows rows written
   * @param createdAtMs when the build completed, epoch ms
   * @param cuts each feature view's name to where it is cut ({@code event}, {@code tick}, {@code event-time})
   * @param stopTick the last tick read, or -1 when no feature is cut at ticks
   * @param file the labels file, or null for labels from a stream
   * @param cutRule {@code as-served}, {@code event-time} or {@code event-time known-at}
   * @throws UncheckedIOException if the file cannot be written
   */
  static void write(TrainingSetSpec spec, TrainingSetStatus started, List<TransformDefinition> views,
      TrainingSetColumns columns, long events, long rows, long createdAtMs, Map<String, String> cuts,
      long stopTick, LabelsFile file, String cutRule) {
    Map<String, Object> manifest = new LinkedHashMap<>();
    manifest.put("name", spec.name());
    manifest.put("tenant", spec.tenant());
    if (file != null) {
      Map<String, Object> labels = new LinkedHashMap<>();
      labels.put("path", file.path().toAbsolutePath().toString());
      labels.put("sha256", file.sha256());
      labels.put("rows", file.rows());
      labels.put("time_column", file.timeColumn());
      manifest.put("labels_file", labels);
      manifest.put("entity", spec.entity());
    } else {
      manifest.put("label_stream", spec.labelStream());
      manifest.put("entity", spec.entity());
      manifest.put("label", spec.label());
      manifest.put("where", spec.where());
    }
    Map<String, Object> range = new LinkedHashMap<>();
    range.put("from", "earliest");
    if (file == null) {
      range.put("to", started.stopMessageId());
    }
    range.put("stop", spec.to().describe(spec.to().inclusive() ? "to" : "before"));
    range.put("events", events);
    if (stopTick >= 0) {
      range.put("tick", stopTick);
    }
    manifest.put("range", range);
    manifest.put("cut_rule", cutRule);
    List<Map<String, Object>> features = new ArrayList<>();
    for (FeatureSpec f : spec.features()) {
      TransformDefinition view = views.stream().filter(v -> v.name().equals(f.view())).findFirst().orElseThrow();
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", f.name());
      entry.put("view", f.view());
      entry.put("column", f.column());
      entry.put("join", f.join().isEmpty() ? spec.entity() : f.join());
      entry.put("ttl_ms", f.ttlMs());
      entry.put("cut", cuts.get(view.name()));
      entry.put("transform_version", view.version());
      entry.put(view.isFold() ? "fold" : "sql", view.logic());
      features.add(entry);
    }
    manifest.put("features", features);
    List<Map<String, String>> cols = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      Map<String, String> column = new LinkedHashMap<>();
      column.put("name", columns.names().get(i));
      column.put("type", columns.types().get(i));
      cols.add(column);
    }
    manifest.put("columns", cols);
    manifest.put("rows", rows);
    manifest.put("format", TrainingSetFormat.of(Path.of(started.output())).name());
    manifest.put("command", spec.command());
    manifest.put("created_at", Instant.ofEpochMilli(createdAtMs).toString());
    try {
      Files.writeString(Path.of(started.manifest()), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(manifest));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
