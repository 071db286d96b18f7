package dev.streamfold.ledger.clock;

import dev.streamfold.core.StreamRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which streams the clock's writer asks the brokers about in a round. Asking costs the broker a request per
 * partition (and a read of its last entry), ten times a second per stream at the default interval, also for
 * streams nobody appends to; this schedule asks about a stream only when it may have moved:
 * <ul>
 *   <li>a stream never asked about, or {@link #touched touched} (this server appended to it, or created it)
 *       since it was last asked about, is due at once;</li>
 *   <li>a stream whose position moved when last asked about is due again after one interval;</li>
 *   <li>a stream that did not move waits twice as long as the last time, up to {@code maxIdle}: a stream that
 *       another server starts appending to while it is idle is covered at most {@code maxIdle} later than
 *       every interval.</li>
 * </ul>
 * {@link #touched} is thread-safe (called on the append path); the rest is for one thread, the writer's.
 */
public final class PollSchedule {
  /** The longest wait before asking again about a stream that has not moved. */
  public static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(1);

  private final long intervalMs;
  private final long maxIdleMs;
  private final Set<StreamRef> touched = ConcurrentHashMap.newKeySet();
  private final Map<StreamRef, Wait> waits = new HashMap<>();

  /** When a stream is due next, and how long it waited last. */
  private record Wait(long dueAtMs, long waitedMs) {}

  /**
   * @param interval the writer's interval, > 0
   * @param maxIdle the longest wait for a stream that has not moved, at least {@code interval}
   * @throws IllegalArgumentException if they are out of range
   */
  public PollSchedule(Duration interval, Duration maxIdle) {
    if (interval.isZero() || interval.isNegative() || maxIdle.compareTo(interval) < 0) {
      throw new IllegalArgumentException("need 0 < interval <= maxIdle, got " + interval + " and " + maxIdle);
    }
    this.intervalMs = interval.toMillis();
    this.maxIdleMs = maxIdle.toMillis();
  }

  /** A stream that may have moved (an append, or its creation): due at the next round. Thread-safe. */
  public void touched(StreamRef stream) {
    touched.add(stream);
  }

  /** True when a touched stream is not among {@code known}: the caller's list of streams is out of date. */
  public boolean touchedUnknown(Collection<StreamRef> known) {
    for (StreamRef stream : touched) {
      if (!known.contains(stream)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The streams to ask about now, in the order given. Forgets streams that are not listed, and touches of them
   * (the caller lists again when {@link #touchedUnknown}; a stream still missing is found by a later listing). A
   * touched stream is due once per touch: the touch is spent here.
   *
   * @param streams every stream of the tenant, as listed
   * @param nowMs the writer's time, milliseconds
   */
  public List<StreamRef> due(List<StreamRef> streams, long nowMs) {
    waits.keySet().retainAll(streams);
    touched.retainAll(streams);
    List<StreamRef> due = new ArrayList<>();
    for (StreamRef stream : streams) {
      Wait wait = waits.get(stream);
      if (touched.remove(stream) || wait == null || nowMs >= wait.dueAtMs()) {
        due.add(stream);
      }
    }
    return due;
  }

  /**
   * Record the answer about a stream. A stream that could not be read is not recorded: it stays due.
   *
   * @param stream a stream from {@link #due}
   * @param moved whether its position moved since it was last asked about
   * @param nowMs the writer's time, milliseconds
   */
  public void asked(StreamRef stream, boolean moved, long nowMs) {
    Wait last = waits.get(stream);
    long wait = moved || last == null ? intervalMs : Math.min(maxIdleMs, last.waitedMs() * 2);
    // Due a little early, so a stream due "every interval" is not skipped by a round that starts a few ms early.
    waits.put(stream, new Wait(nowMs + wait - intervalMs / 2, wait));
  }
}
