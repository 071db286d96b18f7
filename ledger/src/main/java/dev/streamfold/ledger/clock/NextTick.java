package dev.streamfold.ledger.clock;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.Tick;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rule of the clock's writer: the tick after the last recorded one, from the positions it observed. Pure.
 *
 * <p>The next tick lists every stream of the last tick and of the observation; each partition's message ID is
 * the later of the two, so a tick never covers less than the one before it (an observation that lags, e.g. a
 * stream whose position could not be read this time, changes nothing). When nothing moved there is no next
 * tick: the clock ticks only while events are appended.
 */
public final class NextTick {
  private NextTick() {}

  /**
   * The next tick.
   *
   * @param last the last recorded tick ({@link Tick#ZERO} before the first)
   * @param observed the position vector of each stream that holds events, as just read from the ledger; streams
   *     absent here keep their last position
   * @param nowMs the wall time of the observation, epoch milliseconds (the tick's time is never before the
   *     last one's)
   * @return tick {@code last.number() + 1}, or empty when it would cover nothing more than {@code last}
   */
  public static Optional<Tick> after(Tick last, Map<String, PositionVector> observed, long nowMs) {
    TreeMap<String, PositionVector> next = new TreeMap<>(last.streams());
    boolean moved = false;
    for (Map.Entry<String, PositionVector> e : observed.entrySet()) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      PositionVector before = last.position(e.getKey());
      PositionVector merged = later(before, e.getValue());
      if (!merged.equals(before)) {
        next.put(e.getKey(), merged);
        moved = true;
      }
    }
    return moved ? Optional.of(new Tick(last.number() + 1, Math.max(nowMs, last.timeMs()), next)) : Optional.empty();
  }

  /** Per partition, the later message ID of the two vectors. */
  static PositionVector later(PositionVector a, PositionVector b) {
    Map<Integer, MessageId> byPartition = new TreeMap<>();
    for (MessageId id : a.messageIds()) {
      byPartition.put(id.partition(), id);
    }
    for (MessageId id : b.messageIds()) {
      byPartition.merge(id.partition(), id, (x, y) -> x.compareTo(y) >= 0 ? x : y);
    }
    List<MessageId> ids = new ArrayList<>(byPartition.values());
    return PositionVector.of(ids);
  }
}
