package dev.streamfold.transforms.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalLong;

/**
 * When a failed view job is restarted, per job: at most {@link #DEFAULT_MAX_RESTARTS} restarts within a
 * sliding {@link #DEFAULT_WINDOW}, the first after {@link #DEFAULT_FIRST_DELAY}, each later one after twice
 * the delay before it (3, 6, 12, 24, 48 s), so that the restarts outlast an outage of the view store or the
 * ledger of about two minutes (each failed resubmission also waits out its own timeouts) rather than
 * spending all of them in seconds. Thread-safe.
 */
public final class RestartBackoff {
  /** Restarts of one job allowed within the window before it is reported FAILED. */
  public static final int DEFAULT_MAX_RESTARTS = 5;
  /** The sliding window the restarts are counted in. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);
  /** The delay before the first restart in the window; it doubles with each further one. */
  public static final Duration DEFAULT_FIRST_DELAY = Duration.ofSeconds(3);

  private final Clock clock;
  private final int maxRestarts;
  private final long windowMs;
  private final long firstDelayMs;
  /** When each restart in the window was granted, epoch ms, oldest first. */
  private final Deque<Long> granted = new ArrayDeque<>();

  /** The default policy on the given clock. */
  public RestartBackoff(Clock clock) {
    this(clock, DEFAULT_MAX_RESTARTS, DEFAULT_WINDOW, DEFAULT_FIRST_DELAY);
  }

  /**
   * @param clock the time restarts are counted by
   * @param maxRestarts restarts allowed within the window
   * @param window the sliding window
   * @param firstDelay the delay before the first restart of a window
   */
  public RestartBackoff(Clock clock, int maxRestarts, Duration window, Duration firstDelay) {
    this.clock = clock;
    this.maxRestarts = maxRestarts;
    this.windowMs = window.toMillis();
    this.firstDelayMs = firstDelay.toMillis();
  }

  /**
   * A failure now: grant the next restart, or none when {@code maxRestarts} were granted within the window.
   *
   * @return the delay before the restart, ms; empty when the restarts ran out (the job is FAILED)
   */
  public synchronized OptionalLong next() {
    long now = clock.millis();
    while (!granted.isEmpty() && now - granted.peekFirst() > windowMs) {
      granted.pollFirst();
    }
    if (granted.size() >= maxRestarts) {
      return OptionalLong.empty();
    }
    granted.addLast(now);
    return OptionalLong.of(firstDelayMs << (granted.size() - 1));
  }

  /** Restarts granted within the window so far (the last {@link #next()}'s is counted). */
  public synchronized int granted() {
    return granted.size();
  }

  /** Restarts allowed within the window. */
  public int maxRestarts() {
    return maxRestarts;
  }

  /** The window, ms. */
  public long windowMs() {
    return windowMs;
  }
}
