package dev.streamfold.ledger.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.StreamRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which streams the clock's writer asks about in a round. */
class PollScheduleTest {
  private static final StreamRef FLIGHTS = new StreamRef("t", "flights");
  private static final StreamRef AIRPORTS = new StreamRef("t", "airports");
  private static final List<StreamRef> BOTH = List.of(AIRPORTS, FLIGHTS);

  private final PollSchedule schedule = new PollSchedule(Duration.ofMillis(100), Duration.ofMillis(800));

  @Test
  void aStreamNeverAskedAboutIsDue() {
    assertThat(schedule.due(BOTH, 0)).isEqualTo(BOTH);
  }

  @Test
  void aStreamThatMovedIsDueEveryInterval() {
    long now = 0;
    for (int round = 0; round < 10; round++, now += 100) {
      assertThat(schedule.due(BOTH, now)).as("round %d", round).contains(FLIGHTS);
      schedule.asked(FLIGHTS, true, now);
      schedule.asked(AIRPORTS, false, now);
    }
  }

  @Test
  void anIdleStreamWaitsTwiceAsLongEachTimeUpToTheMaximum() {
    List<Long> askedAt = new ArrayList<>();
    for (long now = 0; now <= 5000; now += 100) {
      if (schedule.due(List.of(AIRPORTS), now).contains(AIRPORTS)) {
        askedAt.add(now);
        schedule.asked(AIRPORTS, false, now);
      }
    }
    // waits 100 (first answer), 200, 400, 800, 800, ...
    assertThat(askedAt.subList(0, 7)).containsExactly(0L, 100L, 300L, 700L, 1500L, 2300L, 3100L);
  }

  @Test
  void aTouchMakesAStreamDueInTheNextRoundOnce() {
    schedule.due(BOTH, 0);
    schedule.asked(AIRPORTS, false, 0);
    schedule.asked(FLIGHTS, false, 0);
    schedule.due(BOTH, 100);
    schedule.asked(AIRPORTS, false, 100);
    schedule.asked(FLIGHTS, false, 100);
    assertThat(schedule.due(BOTH, 200)).isEmpty();

    schedule.touched(FLIGHTS);
    assertThat(schedule.due(BOTH, 210)).containsExactly(FLIGHTS);
    assertThat(schedule.due(BOTH, 220)).as("the touch is spent").isEmpty();
  }

  @Test
  void aStreamThatMovesAgainAfterIdlingIsAskedAboutEveryIntervalAgain() {
    for (long now = 0; now < 3000; now += 100) {
      if (schedule.due(List.of(FLIGHTS), now).contains(FLIGHTS)) {
        schedule.asked(FLIGHTS, false, now);
      }
    }
    schedule.touched(FLIGHTS);
    assertThat(schedule.due(List.of(FLIGHTS), 3000)).containsExactly(FLIGHTS);
    schedule.asked(FLIGHTS, true, 3000);
    assertThat(schedule.due(List.of(FLIGHTS), 3100)).containsExactly(FLIGHTS);
  }

  @Test
  void aStreamThatCouldNotBeReadStaysDue() {
    schedule.due(BOTH, 0);
    schedule.asked(AIRPORTS, false, 0); // flights: no answer
    assertThat(schedule.due(BOTH, 10)).containsExactly(FLIGHTS);
  }

  @Test
  void aTouchedStreamMissingFromTheListingAsksForAnotherListingThenIsDroppedUntilListed() {
    StreamRef created = new StreamRef("t", "created");
    schedule.touched(created);
    assertThat(schedule.touchedUnknown(BOTH)).isTrue();
    assertThat(schedule.due(BOTH, 0)).isEqualTo(BOTH);
    schedule.asked(AIRPORTS, false, 0);
    schedule.asked(FLIGHTS, false, 0);
    assertThat(schedule.touchedUnknown(BOTH)).as("dropped: a later listing finds it").isFalse();
    assertThat(schedule.due(List.of(AIRPORTS, created, FLIGHTS), 10)).containsExactly(created);
  }

  @Test
  void refusesAnIntervalLongerThanTheMaximumWait() {
    assertThatThrownBy(() -> new PollSchedule(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT2S");
    assertThatThrownBy(() -> new PollSchedule(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
