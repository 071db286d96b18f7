package dev.streamfold.ledger.clock;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.Tick;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A tick's slice of the ledger (docs/design.md, "The clock, as built"): the events the tick covers and the tick
 * before it does not, as one read range per partition that moved, in the clock's order inside a tick: by stream
 * name, then partition. Reading the ranges in this order, each from just after {@code after} through
 * {@code through} in ledger order, gives the tenant's events in the one total order. Pure.
 *
 * @param tick the tick whose slice it is
 * @param ranges the read ranges, in order; empty only when the tick covers nothing more than the one before
 */
public record TickSlice(long tick, List<TickSlice.Range> ranges) {
  /**
   * The events of one partition in a slice.
   *
   * @param stream the stream name
   * @param partition the partition, -1 for an unpartitioned stream
   * @param after the last event of the partition that an earlier tick covers; empty when none does (read from
   *     the partition's first event)
   * @param through the last event of the partition this tick covers (included)
   */
  public record Range(String stream, int partition, Optional<MessageId> after, MessageId through) {}

  /** Copy the ranges. */
  public TickSlice {
    ranges = List.copyOf(ranges);
  }

  /**
   * The slice of a tick.
   *
   * @param previous the tick before it ({@link Tick#ZERO} before the first)
   * @param tick the tick, {@code previous.number() + 1}
   * @return its slice
   * @throws IllegalArgumentException if the ticks are not consecutive, or {@code tick} covers less than
   *     {@code previous} in some partition (the message names it)
   */
  public static TickSlice of(Tick previous, Tick tick) {
    if (tick.number() != previous.number() + 1) {
      throw new IllegalArgumentException("tick " + tick.number() + " does not follow tick " + previous.number());
    }
    List<Range> ranges = new ArrayList<>();
    for (Map.Entry<String, PositionVector> e : tick.streams().entrySet()) { // sorted by stream name
      PositionVector before = previous.position(e.getKey());
      for (MessageId through : e.getValue().messageIds()) { // sorted by partition
        Optional<MessageId> after = before.at(through.partition());
        int order = after.map(a -> a.compareTo(through)).orElse(-1);
        if (order > 0) {
          throw new IllegalArgumentException("tick " + tick.number() + " covers less of " + e.getKey() + " partition "
              + through.partition() + " (" + through + ") than tick " + previous.number() + " (" + after.get() + ")");
        }
        if (order < 0) {
          ranges.add(new Range(e.getKey(), through.partition(), after, through));
        }
      }
    }
    for (Map.Entry<String, PositionVector> e : previous.streams().entrySet()) {
      for (MessageId id : e.getValue().messageIds()) {
        if (!tick.covers(e.getKey(), id)) {
          throw new IllegalArgumentException("tick " + tick.number() + " does not cover " + e.getKey() + " partition "
              + id.partition() + " up to " + id + " as tick " + previous.number() + " does");
        }
      }
    }
    return new TickSlice(tick.number(), ranges);
  }
}
