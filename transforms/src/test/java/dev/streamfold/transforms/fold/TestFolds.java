package dev.streamfold.transforms.fold;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Transformations for the fold tests. */
public final class TestFolds {
  private TestFolds() {}

  /** Sums {@code n} per {@code group}; an event with {@code "delete":true} deletes its group's row. */
  public static final class Sum implements Transformation<Sum.State> {
    public static final class State {
      public long sum;
      public long events;
      public State() {}
    }

    @Override public String keyColumn() { return "group"; }
    @Override public List<Column> columns() {
      return List.of(Column.bigint("sum"), Column.integer("events"), Column.array("last", "DOUBLE"),
          Column.timestamp("at"), Column.bool("even"), Column.string("label"));
    }
    @Override public String key(Event event) { return event.string("group"); }
    @Override public State initial() { return new State(); }
    @Override public State apply(State state, Event event) {
      if (Boolean.TRUE.equals(event.bool("delete"))) {
        return null;
      }
      if ("boom".equals(event.string("group"))) {
        throw new IllegalStateException("boom");
      }
      state.sum += event.longValue("n");
      state.events++;
      return state;
    }
    @Override public Map<String, ?> row(State state) {
      Map<String, Object> row = new HashMap<>();
      row.put("sum", state.sum);
      row.put("events", state.events);
      row.put("last", new double[] {state.sum / 2.0});
      row.put("at", state.sum);
      row.put("even", state.sum % 2 == 0);
      row.put("label", null);
      return row;
    }
    @Override public Class<State> stateClass() { return State.class; }
  }

  /** Flights and total delay per origin (a fold twin of the SQL views over flights). */
  public static final class FlightsByOrigin implements Transformation<FlightsByOrigin.State> {
    public static final class State {
      public long flights;
      public long totalDelay;
      public State() {}
    }

    @Override public String keyColumn() { return "origin"; }
    @Override public List<Column> columns() { return List.of(Column.bigint("flights"), Column.bigint("total_delay")); }
    @Override public String key(Event event) { return event.string("origin"); }
    @Override public State initial() { return new State(); }
    @Override public State apply(State state, Event event) {
      state.flights++;
      state.totalDelay += event.longValue("delay");
      return state;
    }
    @Override public Map<String, ?> row(State state) {
      return Map.of("flights", state.flights, "total_delay", state.totalDelay);
    }
    @Override public Class<State> stateClass() { return State.class; }
  }

  /**
   * {@link FlightsByOrigin}, paced: it sleeps 1 ms every {@value #EVENTS_PER_MS} events, so a backfill of n events
   * lasts at least n / {@value #EVENTS_PER_MS} ms however fast the machine is. A test that must act while a backfill
   * is under way (a TaskManager killed between two checkpoints) waits on this view, not on a race with a fast one.
   */
  public static final class PacedFlightsByOrigin implements Transformation<FlightsByOrigin.State> {
    static final int EVENTS_PER_MS = 20;
    private final FlightsByOrigin fold = new FlightsByOrigin();
    private long applied;

    @Override public String keyColumn() { return fold.keyColumn(); }
    @Override public List<Column> columns() { return fold.columns(); }
    @Override public String key(Event event) { return fold.key(event); }
    @Override public FlightsByOrigin.State initial() { return fold.initial(); }
    @Override public FlightsByOrigin.State apply(FlightsByOrigin.State state, Event event) {
      if (++applied % EVENTS_PER_MS == 0) {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while pacing the fold", e);
        }
      }
      return fold.apply(state, event);
    }
    @Override public Map<String, ?> row(FlightsByOrigin.State state) { return fold.row(state); }
    @Override public Class<FlightsByOrigin.State> stateClass() { return fold.stateClass(); }
  }

  /**
   * A jar of the compiled {@code TestFolds} classes (as a user would upload).
   *
   * @return the jar's bytes
   */
  public static byte[] jar() {
    try {
      java.nio.file.Path classes = java.nio.file.Path.of(
          TestFolds.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      java.nio.file.Path pkg = classes.resolve("dev/streamfold/transforms/fold");
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(bytes);
          java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(pkg)) {
        for (java.nio.file.Path file : files.filter(f -> f.getFileName().toString().startsWith("TestFolds")).toList()) {
          out.putNextEntry(new java.util.jar.JarEntry("dev/streamfold/transforms/fold/" + file.getFileName()));
          java.nio.file.Files.copy(file, out);
          out.closeEntry();
        }
      }
      return bytes.toByteArray();
    } catch (java.io.IOException | java.net.URISyntaxException e) {
      throw new IllegalStateException("cannot build the test jar", e);
    }
  }

  /** A state Flink can only serialize with Kryo (a List field). */
  public static final class KryoState implements Transformation<KryoState.State> {
    public static final class State {
      public java.util.List<Object> items = new java.util.ArrayList<>();
      public State() {}
    }

    @Override public String keyColumn() { return "k"; }
    @Override public List<Column> columns() { return List.of(Column.bigint("n")); }
    @Override public String key(Event event) { return event.key(); }
    @Override public State initial() { return new State(); }
    @Override public State apply(State state, Event event) { return state; }
    @Override public Map<String, ?> row(State state) { return Map.of("n", state.items.size()); }
    @Override public Class<State> stateClass() { return State.class; }
  }

  /** Returns a column it did not declare. */
  public static final class UndeclaredColumn implements Transformation<Long> {
    @Override public String keyColumn() { return "k"; }
    @Override public List<Column> columns() { return List.of(Column.bigint("n")); }
    @Override public String key(Event event) { return event.key(); }
    @Override public Long initial() { return 0L; }
    @Override public Long apply(Long state, Event event) { return state + 1; }
    @Override public Map<String, ?> row(Long state) { return Map.of("m", state); }
    @Override public Class<Long> stateClass() { return Long.class; }
  }

  /** Declares its key column among the others. */
  public static final class KeyTwice implements Transformation<Long> {
    @Override public String keyColumn() { return "n"; }
    @Override public List<Column> columns() { return List.of(Column.bigint("n")); }
    @Override public String key(Event event) { return event.key(); }
    @Override public Long initial() { return 0L; }
    @Override public Long apply(Long state, Event event) { return state + 1; }
    @Override public Map<String, ?> row(Long state) { return Map.of("n", state); }
    @Override public Class<Long> stateClass() { return Long.class; }
  }

  /** No public no-argument constructor. */
  public static final class NoDefaultConstructor extends UndeclaredColumnBase {
    public NoDefaultConstructor(int x) {}
  }

  /** A base for the class above. */
  public abstract static class UndeclaredColumnBase implements Transformation<Long> {
    @Override public String keyColumn() { return "k"; }
    @Override public List<Column> columns() { return List.of(Column.bigint("n")); }
    @Override public String key(Event event) { return event.key(); }
    @Override public Long initial() { return 0L; }
    @Override public Long apply(Long state, Event event) { return state; }
    @Override public Map<String, ?> row(Long state) { return Map.of("n", state); }
    @Override public Class<Long> stateClass() { return Long.class; }
  }
}
