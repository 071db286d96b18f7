package dev.streamfold.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.TrainingSetPlan;
import dev.streamfold.api.v1.TrainingSetPlanFeature;
import java.time.Duration;
import java.util.Locale;

/** A training set's plan ({@code training-set create --dry-run}) as text for people and as JSON for scripts. */
final class TrainingSetPlans {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrainingSetPlans() {}

  /** The plan as lines of text, ending with a newline. */
  static String text(TrainingSetPlan p) {
    StringBuilder out = new StringBuilder();
    out.append("Training set ").append(p.getName()).append(" (dry run: nothing built)\n");
    boolean fromFile = !p.getLabelsFile().isEmpty();
    boolean knownAt = p.getCutRule().endsWith("known-at");
    if (fromFile) {
      out.append(String.format(Locale.ROOT, "  labels    file %s, %,d rows, time column %s%n", p.getLabelsFile(),
          p.getLabelRows(), p.getTimeColumn()));
      out.append("  cut       by event time: each feature is the fold of the events whose event time is at or before the"
          + " row's time").append(knownAt ? ", and that the ledger had acknowledged by then" : "").append('\n');
    } else {
      out.append("  labels    stream ").append(p.getLabelStream())
          .append(p.getPartitions() > 0 ? " (" + p.getPartitions() + " partitions)" : "")
          .append(p.getWhere().isEmpty() ? ", every event" : ", events where " + p.getWhere()).append('\n');
    }
    if (p.getCutRule().startsWith("event-time")) {
      if (!fromFile) {
        out.append("  cut       by event time: each feature is the fold of the events before the label event in"
            + " event-time order").append(knownAt ? ", acknowledged by the ledger by then" : "").append('\n');
      }
      out.append("  stop      ").append(p.getStop()).append(", reads every stream through tick ").append(p.getTick())
          .append(" of the tenant clock\n");
      out.append(String.format(Locale.ROOT, "  events    at most %,d (the streams' events%s)%n", p.getTargetEvents(),
          fromFile ? " and the file's rows" : ""));
    } else {
      out.append("  stop      ").append(p.getStop())
          .append(p.getReadThrough().isEmpty() ? " (no event to read)" : ", reads through " + p.getReadThrough())
          .append(p.getTick() > 0 ? "; other streams through tick " + p.getTick() + " of the tenant clock" : "")
          .append('\n');
      out.append(String.format(Locale.ROOT, "  events    %s%,d of the label stream%n", p.getTargetEventsExact() ? ""
          : "at most ", p.getTargetEvents()));
    }
    out.append("  features\n");
    for (TrainingSetPlanFeature f : p.getFeaturesList()) {
      out.append("    ").append(f.getName()).append(' ').append(f.getType()).append(" = ").append(f.getView())
          .append('.').append(f.getColumn()).append(" (view version ").append(f.getViewVersion()).append(", ")
          .append(f.getLogic().equals("java") ? "Java" : "SQL").append(" over ").append(String.join(", ", f.getStreamsList()))
          .append(") at key ").append(f.getJoin())
          .append(f.getTtlMs() < 0 ? "" : ", ttl " + Duration.ofMillis(f.getTtlMs()).toString().substring(2).toLowerCase(Locale.ROOT))
          .append(f.getCut().equals("tick") ? ", as at the last tick before the label event" : "")
          .append('\n');
    }
    out.append("  columns   ");
    for (int i = 0; i < p.getHeader().getColumnsCount(); i++) {
      out.append(i == 0 ? "" : ", ").append(p.getHeader().getColumns(i)).append(' ').append(p.getHeader().getTypes(i));
    }
    out.append('\n');
    out.append("  output    ").append(p.getOutput()).append(" (").append(p.getFormat()).append("), manifest ")
        .append(p.getManifest()).append('\n');
    return out.toString();
  }

  /** The plan as one JSON object (snake_case fields as in the API's TrainingSetPlan), ending with a newline. */
  static String json(TrainingSetPlan p) {
    ObjectNode root = JSON.createObjectNode();
    root.put("name", p.getName());
    root.put("label_stream", p.getLabelStream());
    if (!p.getLabelsFile().isEmpty()) {
      root.put("labels_file", p.getLabelsFile());
      root.put("label_rows", p.getLabelRows());
      root.put("time_column", p.getTimeColumn());
    }
    root.put("cut_rule", p.getCutRule());
    root.put("partitions", p.getPartitions());
    root.put("where", p.getWhere());
    root.put("stop", p.getStop());
    root.put("read_through", p.getReadThrough());
    root.put("target_events", p.getTargetEvents());
    root.put("target_events_exact", p.getTargetEventsExact());
    if (p.getTick() > 0) {
      root.put("tick", p.getTick());
    } else {
      root.putNull("tick"); // no feature is cut at ticks
    }
    root.put("output", p.getOutput());
    root.put("format", p.getFormat());
    root.put("manifest", p.getManifest());
    ArrayNode columns = root.putArray("columns");
    for (int i = 0; i < p.getHeader().getColumnsCount(); i++) {
      columns.addObject().put("name", p.getHeader().getColumns(i)).put("type", p.getHeader().getTypes(i));
    }
    ArrayNode features = root.putArray("features");
    for (TrainingSetPlanFeature f : p.getFeaturesList()) {
      ObjectNode feature = features.addObject();
      feature.put("name", f.getName()).put("view", f.getView()).put("view_version", f.getViewVersion())
          .put("logic", f.getLogic());
      f.getStreamsList().forEach(feature.putArray("streams")::add);
      feature.put("column", f.getColumn()).put("type", f.getType()).put("join", f.getJoin()).put("ttl_ms", f.getTtlMs())
          .put("cut", f.getCut());
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
