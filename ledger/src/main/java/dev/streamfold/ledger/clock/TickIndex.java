package dev.streamfold.ledger.clock;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.Tick;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Consecutive ticks of one clock, in order, and the first tick that covers an event: the tick whose slice of the
 * ledger holds it. Ticks cover monotonically more, so the lookup is a binary search. Immutable.
 */
public final class TickIndex {
  private final List<Tick> ticks;

  /**
   * Index ticks.
   *
   * @param ticks consecutive ticks of one clock, in order (any first number)
   * @throws IllegalArgumentException if a number is skipped or repeated, or a tick covers less than the one
   *     before it (the message names both ticks)
   */
  public TickIndex(List<Tick> ticks) {
    for (int i = 1; i < ticks.size(); i++) {
      Tick before = ticks.get(i - 1);
      Tick tick = ticks.get(i);
      if (tick.number() != before.number() + 1) {
        throw new IllegalArgumentException("tick " + tick.number() + " follows tick " + before.number());
      }
      if (!tick.coversAll(before)) {
        throw new IllegalArgumentException("tick " + tick.number() + " covers less than tick " + before.number()
            + ": " + tick.streams() + " after " + before.streams());
      }
    }
    this.ticks = List.copyOf(new ArrayList<>(ticks));
  }

  /** The ticks, in order. */
  public List<Tick> ticks() {
    return ticks;
  }

  /**
   * The first indexed tick that covers an event.
   *
   * @param stream the event's stream name
   * @param id its message ID
   * @return that tick's number, or empty when no indexed tick covers it
   */
  public OptionalLong firstCovering(String stream, MessageId id) {
    int lo = 0;
    int hi = ticks.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ticks.get(mid).covers(stream, id)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo < ticks.size() ? OptionalLong.of(ticks.get(lo).number()) : OptionalLong.empty();
  }
}
