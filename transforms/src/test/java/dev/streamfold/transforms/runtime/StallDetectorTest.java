package dev.streamfold.transforms.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The stall rule of backfills and replays, on a fixed clock (the ledger is not asked when nothing stalls). */
class StallDetectorTest {
  private static final long NOW = 1_000_000_000L;
  private final StallDetector detector = new StallDetector(null, Duration.ofSeconds(60),
      Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));

  private static ViewMetadata backfill(long applied, long target, long committedAtMs) {
    return new ViewMetadata(1, ViewPhase.BACKFILLING, applied, target, PositionVector.EMPTY,
        PositionVector.parse("1:2:-1:-1"), 0, committedAtMs, "");
  }

  @Test
  void aBackfillWithEventsLeftAndNoCommitForTheStallTimeIsStalled() {
    assertThat(detector.idleMs(backfill(10, 100, NOW - 61_000), 0)).isEqualTo(61_000);
    assertThat(detector.idleMs(backfill(10, 100, NOW - 59_000), 0)).as("not yet").isEqualTo(-1);
    assertThat(detector.idleMs(backfill(10, 100, NOW - 120_000), NOW - 30_000)).as("resubmitted 30 s ago")
        .isEqualTo(-1);
    assertThat(detector.idleMs(backfill(100, 100, NOW - 120_000), 0)).as("nothing left").isEqualTo(-1);
    assertThat(detector.idleMs(backfill(0, 100, 0), 0)).as("no commit yet: still starting").isEqualTo(-1);
    assertThat(detector.idleMs(new ViewMetadata(1, ViewPhase.LIVE, 10, 100, PositionVector.EMPTY, PositionVector.EMPTY, 0,
        NOW - 120_000, ""), 0))
        .as("a live view waits for events, it does not stall").isEqualTo(-1);
    assertThat(detector.stalled(null, backfill(10, 100, NOW - 59_000), 0, "backfill")).isEmpty();
  }
}
