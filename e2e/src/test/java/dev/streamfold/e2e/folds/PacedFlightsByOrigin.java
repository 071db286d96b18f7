package dev.streamfold.e2e.folds;

import dev.streamfold.transforms.fold.Column;
import dev.streamfold.transforms.fold.Event;
import dev.streamfold.transforms.fold.Transformation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Flights and total delay per origin, paced: the fold sleeps 1 ms every {@value #EVENTS_PER_MS} events, so a
 * backfill of n events lasts at least n / {@value #EVENTS_PER_MS} ms however fast the machine is. A test that must
 * act while a backfill is under way (a server killed between two checkpoints) waits on this view, not on a race
 * with a fast one (a SQL view's first checkpoint may already hold every event).
 */
public final class PacedFlightsByOrigin implements Transformation<PacedFlightsByOrigin.State> {
  static final int EVENTS_PER_MS = 40;
  private long applied;

  /** A fold's state: public fields and a public no-argument constructor. */
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
    if (++applied % EVENTS_PER_MS == 0) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while pacing the fold", e);
      }
    }
    state.flights++;
    state.totalDelay += event.longValue("delay");
    return state;
  }

  @Override public Map<String, ?> row(State state) {
    return Map.of("flights", state.flights, "total_delay", state.totalDelay);
  }

  @Override public Class<State> stateClass() { return State.class; }

  /**
   * A jar of this package's compiled classes, as a user would upload it.
   *
   * @return the jar's bytes
   */
  public static byte[] jar() {
    String dir = PacedFlightsByOrigin.class.getPackageName().replace('.', '/');
    try {
      Path classes = Path.of(PacedFlightsByOrigin.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (JarOutputStream out = new JarOutputStream(bytes);
          java.util.stream.Stream<Path> files = Files.list(classes.resolve(dir))) {
        for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".class")).toList()) {
          out.putNextEntry(new JarEntry(dir + "/" + file.getFileName()));
          Files.copy(file, out);
          out.closeEntry();
        }
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the paced fold's jar", e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot build the paced fold's jar", e);
    }
  }
}
