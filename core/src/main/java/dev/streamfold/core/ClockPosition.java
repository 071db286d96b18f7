package dev.streamfold.core;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The position of a reader of several streams in the tenant clock's order (docs/design.md, "Many streams, one
 * clock"): the last tick it has read whole, and the position vector of each stream it reads at that tick (the
 * tick's own vectors of those streams). A view over several streams commits only at tick boundaries, so its
 * position is always one of these. A stream that held no events at the tick is absent.
 *
 * <p>Text form: the tick number, then one {@code stream=vector} per stream in name order, separated by spaces, e.g.
 * {@code 17 airports=10:3:-1:-1 flights=11:40:0:-1,12:38:1:-1}; {@code 0} is tick 0 (nothing read yet). The empty
 * text is {@link #NONE}: not a clocked position at all (a view over one stream, positioned by message IDs). The
 * text round-trips exactly: {@code parse(p.toString())} equals {@code p}.
 *
 * @param tick the last tick read whole (0: none yet), or -1 for {@link #NONE}
 * @param streams each stream's position vector at that tick, by stream name
 */
public record ClockPosition(long tick, SortedMap<String, PositionVector> streams) {
  /** Not a clocked position (text form ""): the reader reads one stream by message IDs. */
  public static final ClockPosition NONE = new ClockPosition(-1, new TreeMap<>());

  /** Tick 0: nothing read yet (text form "0"). */
  public static final ClockPosition START = new ClockPosition(0, new TreeMap<>());

  /**
   * Create a position.
   *
   * @throws IllegalArgumentException if the tick is below -1, a stream has an empty vector, a stream name holds a
   *     space or '=', or {@link #NONE}'s tick -1 comes with streams
   * @throws NullPointerException if {@code streams} or an entry is null
   */
  public ClockPosition {
    if (tick < -1 || tick == -1 && !streams.isEmpty()) {
      throw new IllegalArgumentException("a clock position's tick must be >= 0, got " + tick);
    }
    TreeMap<String, PositionVector> copy = new TreeMap<>();
    for (Map.Entry<String, PositionVector> e : streams.entrySet()) {
      String stream = Objects.requireNonNull(e.getKey(), "stream name");
      if (stream.isEmpty() || stream.indexOf(' ') >= 0 || stream.indexOf('=') >= 0) {
        throw new IllegalArgumentException("invalid stream name in a clock position: " + ClientText.quote(stream));
      }
      if (Objects.requireNonNull(e.getValue(), "position vector").isEmpty()) {
        throw new IllegalArgumentException("clock position at tick " + tick + " lists stream '" + stream
            + "' without a position");
      }
      copy.put(stream, e.getValue());
    }
    streams = Collections.unmodifiableSortedMap(copy);
  }

  /**
   * The position of a reader of some streams at a tick: the tick's vectors of those streams.
   *
   * @param tick the tick
   * @param read the streams read
   * @return the position
   */
  public static ClockPosition at(Tick tick, java.util.Collection<String> read) {
    TreeMap<String, PositionVector> vectors = new TreeMap<>();
    for (String stream : read) {
      PositionVector vector = tick.position(stream);
      if (!vector.isEmpty()) {
        vectors.put(stream, vector);
      }
    }
    return new ClockPosition(tick.number(), vectors);
  }

  /** Whether this is {@link #NONE}. */
  public boolean isNone() {
    return tick < 0;
  }

  /**
   * The position vector of one stream.
   *
   * @param stream a stream name
   * @return its vector, or {@link PositionVector#EMPTY} when none was read
   */
  public PositionVector position(String stream) {
    return streams.getOrDefault(stream, PositionVector.EMPTY);
  }

  /**
   * Parse the text form.
   *
   * @param text e.g. {@code 17 airports=10:3:-1:-1 flights=11:40:0:-1,12:38:1:-1}, {@code 0}, or ""
   * @return the position ({@link #NONE} for "")
   * @throws IllegalArgumentException if the text is null or malformed (the message quotes it and says why)
   */
  public static ClockPosition parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("clock position is missing");
    }
    if (text.isEmpty()) {
      return NONE;
    }
    String[] parts = text.split(" ", -1);
    try {
      long tick = Long.parseLong(parts[0]);
      TreeMap<String, PositionVector> streams = new TreeMap<>();
      for (int i = 1; i < parts.length; i++) {
        int eq = parts[i].indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("expected stream=vector, got " + ClientText.quote(parts[i]));
        }
        if (streams.put(parts[i].substring(0, eq), PositionVector.parse(parts[i].substring(eq + 1))) != null) {
          throw new IllegalArgumentException("stream " + ClientText.quote(parts[i].substring(0, eq)) + " is named twice");
        }
      }
      if (tick < 0) {
        throw new IllegalArgumentException("the tick must be >= 0");
      }
      return new ClockPosition(tick, streams);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid clock position " + ClientText.quote(text) + ": " + e.getMessage()
          + " (expected e.g. 17 airports=10:3:-1:-1 flights=11:40:0:-1,12:38:1:-1)", e);
    }
  }

  @Override
  public String toString() {
    if (isNone()) {
      return "";
    }
    StringBuilder text = new StringBuilder(Long.toString(tick));
    streams.forEach((stream, vector) -> text.append(' ').append(stream).append('=').append(vector));
    return text.toString();
  }
}
