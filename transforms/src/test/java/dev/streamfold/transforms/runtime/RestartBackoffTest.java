package dev.streamfold.transforms.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The restart rule of failed view jobs, on a clock the test moves (milliseconds, no waiting). */
class RestartBackoffTest {
  /** A clock that stands still until moved. */
  private static final class ManualClock extends Clock {
    private long ms;

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(ms);
    }

    void advance(Duration d) {
      ms += d.toMillis();
    }
  }

  @Test
  void delaysDoubleAndRestartsRunOutWithinTheWindow() {
    ManualClock clock = new ManualClock();
    RestartBackoff backoff = new RestartBackoff(clock);
    for (long delay : new long[] {3_000, 6_000, 12_000, 24_000, 48_000}) {
      assertThat(backoff.next()).isEqualTo(OptionalLong.of(delay));
      clock.advance(Duration.ofMillis(delay + 1_000));
    }
    assertThat(backoff.granted()).isEqualTo(5);
    assertThat(backoff.next()).as("a sixth failure within 10 min").isEmpty();
  }

  @Test
  void restartsOlderThanTheWindowNoLongerCount() {
    ManualClock clock = new ManualClock();
    RestartBackoff backoff = new RestartBackoff(clock, 2, Duration.ofMinutes(10), Duration.ofSeconds(3));
    assertThat(backoff.next()).hasValue(3_000);
    clock.advance(Duration.ofMinutes(6));
    assertThat(backoff.next()).hasValue(6_000);
    assertThat(backoff.next()).isEmpty();
    clock.advance(Duration.ofMinutes(4).plusMillis(1)); // the first is now 10 min + 1 ms old
    assertThat(backoff.next()).as("one slot free again; the delay counts the one still in the window")
        .hasValue(6_000);
    clock.advance(Duration.ofMinutes(11));
    assertThat(backoff.next()).as("a new window starts over").hasValue(3_000);
  }
}
