package dev.streamfold.schema;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The evolution rules of a stream's schema. Events are immutable and every view must replay them with
 * the same result, so a new schema must read every stored event as the old one did:
 * <ul>
 *   <li>a new column is optional, or NOT NULL with a DEFAULT (stored events are read with it);</li>
 *   <li>a column keeps its type (stored events hold values of the old type);</li>
 *   <li>a column keeps its DEFAULT (stored events without it would replay differently);</li>
 *   <li>an optional column may not become NOT NULL without a DEFAULT (stored events may lack it);</li>
 *   <li>a NOT NULL column without a DEFAULT may not be removed (readers of the old schema need it; Pulsar's
 *       FULL compatibility refuses it too); other columns may be removed (SQL no longer sees them).</li>
 * </ul>
 */
public final class StreamSchemas {
  private StreamSchemas() {}

  /**
   * Check a schema change.
   *
   * @param old the stream's columns now
   * @param next the requested columns
   * @return what is incompatible, naming the first column concerned, or null when the change is allowed
   */
  public static String incompatibility(List<StreamColumn> old, List<StreamColumn> next) {
    Map<String, StreamColumn> before = old.stream()
        .collect(Collectors.toMap(c -> c.name().toLowerCase(Locale.ROOT), Function.identity()));
    Map<String, StreamColumn> after = next.stream()
        .collect(Collectors.toMap(c -> c.name().toLowerCase(Locale.ROOT), Function.identity()));
    for (StreamColumn was : old) {
      StreamColumn now = after.get(was.name().toLowerCase(Locale.ROOT));
      if (now == null) {
        if (was.required() && was.defaultJson() == null) {
          return "column '" + was.name() + "' (" + was.describe() + ") cannot be removed: it is NOT NULL without a"
              + " DEFAULT, so readers of the current schema need it in every event";
        }
        continue;
      }
      if (!now.type().equals(was.type())) {
        return "column '" + was.name() + "' cannot change its type from " + was.type() + " to " + now.type()
            + ": stored events hold " + was.type() + " values (add a new column instead)";
      }
      if (!java.util.Objects.equals(now.defaultJson(), was.defaultJson())) {
        return "column '" + was.name() + "' cannot change its DEFAULT from " + was.defaultJson() + " to "
            + now.defaultJson() + ": stored events without it would replay differently";
      }
      if (now.required() && !was.required() && now.defaultJson() == null) {
        return "column '" + was.name() + "' cannot become NOT NULL without a DEFAULT: stored events may lack it";
      }
    }
    for (StreamColumn added : next) {
      if (!before.containsKey(added.name().toLowerCase(Locale.ROOT)) && added.required() && added.defaultJson() == null) {
        return "new column '" + added.name() + "' is NOT NULL without a DEFAULT: stored events have no value for"
            + " it; make it optional or give it a DEFAULT";
      }
    }
    return null;
  }
}
