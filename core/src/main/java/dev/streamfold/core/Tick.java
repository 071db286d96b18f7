package dev.streamfold.core;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One tick of a tenant's clock (docs/design.md, "Many streams, one clock"): a number and the position vector of
 * every stream of the tenant that held events when the tick was taken. A tick covers an event when the event's
 * message ID is at or before its stream's vector. Ticks are recorded once and never change; each covers at least
 * what the one before it covers, so every event has one first covering tick, and the tenant's events are
 * ordered by (first covering tick, stream name, partition, message ID).
 *
 * @param number 1 for a clock's first tick, then consecutive; 0 only for {@link #ZERO}
 * @param timeMs when the clock's writer read the positions, epoch milliseconds (orders nothing; informative)
 * @param streams the position vector of each stream that held events, by stream name (sorted by name)
 */
public record Tick(long number, long timeMs, SortedMap<String, PositionVector> streams) {
  /** Tick 0: before a clock's first tick, it covers nothing. */
  public static final Tick ZERO = new Tick(0, 0, new TreeMap<>());

  /**
   * Create a tick.
   *
   * @throws IllegalArgumentException if the number is negative, or a stream has an empty vector
   * @throws NullPointerException if {@code streams} or one of its entries is null
   */
  public Tick {
    if (number < 0) {
      throw new IllegalArgumentException("tick number must be >= 0, got " + number);
    }
    TreeMap<String, PositionVector> copy = new TreeMap<>();
    for (Map.Entry<String, PositionVector> e : streams.entrySet()) {
      Objects.requireNonNull(e.getKey(), "stream name");
      if (e.getValue().isEmpty()) {
        throw new IllegalArgumentException("tick " + number + " lists stream '" + e.getKey() + "' without a position");
      }
      copy.put(e.getKey(), e.getValue());
    }
    streams = Collections.unmodifiableSortedMap(copy);
  }

  /**
   * The position vector of one stream at this tick.
   *
   * @param stream a stream name of the tenant
   * @return its vector, or {@link PositionVector#EMPTY} when the stream held no events at this tick
   */
  public PositionVector position(String stream) {
    return streams.getOrDefault(stream, PositionVector.EMPTY);
  }

  /**
   * Tell whether this tick covers an event.
   *
   * @param stream the event's stream name
   * @param id the event's message ID
   * @return true when the stream's vector has reached {@code id}
   */
  public boolean covers(String stream, MessageId id) {
    return position(stream).reached(id);
  }

  /**
   * Tell whether this tick covers everything another tick covers (the rule between consecutive ticks).
   *
   * @param earlier another tick of the same clock
   * @return true when every stream's vector of {@code earlier} is reached here
   */
  public boolean coversAll(Tick earlier) {
    return earlier.streams.entrySet().stream().allMatch(e -> position(e.getKey()).reached(e.getValue()));
  }

  @Override
  public String toString() {
    return "tick " + number + " " + streams;
  }
}
