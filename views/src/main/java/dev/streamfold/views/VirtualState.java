package dev.streamfold.views;

import java.util.Map;
import java.util.Objects;

/**
 * What a virtual state is: a named, read-only state of a view's transformation folded over a bounded
 * range of the ledger. Its rows live as version 1 of a view named {@code name} (see {@link RedisKeys});
 * its phase, position and progress are that version's {@link ViewMetadata}; this record is stored in the
 * virtual state's view hash.
 *
 * @param name the virtual state (its rows are read as {@code <name>:<key>})
 * @param sourceView the view whose transformation was replayed
 * @param transformVersion the transformation (view) version whose SQL was replayed
 * @param sql that version's SQL, as replayed
 * @param start where the replay started: "" for the earliest event (a full-history state), else the
 *     start cursor text (e.g. {@code from 12:5:-1:-1}); a state that does not start at the earliest
 *     event is not the view as of any position, only a debugging aid
 * @param stop the stop cursor text as requested, e.g. {@code to 12:5:-1:4}, {@code before 2015-01-02T00:00:00Z}
 * @param createdAtMs creation time, epoch milliseconds
 */
public record VirtualState(ViewName name, String sourceView, int transformVersion, String sql, String start,
    String stop, long createdAtMs) {

  /** Kind field value of a virtual state's view hash. */
  static final String KIND = "virtual";

  public VirtualState {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sourceView, "sourceView");
    sql = sql == null ? "" : sql;
    start = start == null ? "" : start;
    stop = stop == null ? "" : stop;
  }

  /** True when the replay started at the earliest event: the rows are the view as of the stop position. */
  public boolean fullHistory() {
    return start.isEmpty();
  }

  Map<String, String> toHash() {
    return Map.of("kind", KIND, "source_view", sourceView, "transform_version", Integer.toString(transformVersion),
        "sql", sql, "start", start, "stop", stop, "created_at_ms", Long.toString(createdAtMs));
  }

  static VirtualState fromHash(ViewName name, Map<String, String> hash) {
    return new VirtualState(name, hash.getOrDefault("source_view", ""),
        Integer.parseInt(hash.getOrDefault("transform_version", "0")), hash.getOrDefault("sql", ""),
        hash.getOrDefault("start", ""), hash.getOrDefault("stop", ""),
        Long.parseLong(hash.getOrDefault("created_at_ms", "0")));
  }
}
