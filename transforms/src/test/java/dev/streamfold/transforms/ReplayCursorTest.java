package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import org.junit.jupiter.api.Test;

class ReplayCursorTest {

  @Test
  void readsMessageIdsTimesAndLatest() {
    ReplayCursor id = ReplayCursor.parse("12:5:-1:4", true);
    assertThat(id.kind()).isEqualTo(ReplayCursor.Kind.MESSAGE);
    assertThat(id.messageId()).contains(new MessageId(12, 5, -1, 4));
    assertThat(id.describe("to")).isEqualTo("to 12:5:-1:4");

    assertThat(ReplayCursor.parse("2015-01-02T10:00:00Z", true).eventTimeMs()).isEqualTo(1420192800000L);
    assertThat(ReplayCursor.parse("2015-01-02T10:00:00", true).eventTimeMs()).isEqualTo(1420192800000L);
    assertThat(ReplayCursor.parse("2015-01-02T12:00:00+02:00", true).eventTimeMs()).isEqualTo(1420192800000L);
    assertThat(ReplayCursor.parse("2015-01-02", false).eventTimeMs()).isEqualTo(1420156800000L);
    assertThat(ReplayCursor.parse("1420156800000", false).eventTimeMs()).isEqualTo(1420156800000L);
    assertThat(ReplayCursor.parse("2015-01-02", false).describe("before")).isEqualTo("before 2015-01-02T00:00:00Z");
    assertThat(ReplayCursor.parse(" LATEST ", true).kind()).isEqualTo(ReplayCursor.Kind.LATEST);
  }

  @Test
  void rejectsWhatNamesNoPosition() {
    assertThatThrownBy(() -> ReplayCursor.parse("yesterday", true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'yesterday'")
        .hasMessageContaining("message ID").hasMessageContaining("ISO-8601");
    assertThatThrownBy(() -> ReplayCursor.parse("12:5", true)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReplayCursor.parse("latest", false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--to latest");
  }

  @Test
  void positionVectorsNameEachPartitionOnceAndOnlyOfPartitionedStreams() {
    assertThat(ReplayCursor.parse("12:5:0:-1,13:2:1:-1", true).position()).hasSize(2);
    assertThatThrownBy(() -> ReplayCursor.parse("12:5:0:-1,13:2:0:-1", true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names partition 0 twice");
    assertThatThrownBy(() -> ReplayCursor.parse("12:5:-1:-1,12:6:-1:-1", true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unpartitioned stream")
        .hasMessageContaining("name one message ID instead").hasMessageNotContaining("twice");
  }

  @Test
  void ticksOfTheTenantClockAreCursorsOfViewsOverSeveralStreams() {
    ReplayCursor tick = ReplayCursor.parse(" TICK:17 ", false);
    assertThat(tick.kind()).isEqualTo(ReplayCursor.Kind.TICK);
    assertThat(tick.tick()).isEqualTo(17);
    assertThat(tick.inclusive()).isFalse();
    assertThat(tick.describe("before")).isEqualTo("before tick:17");
    assertThat(ReplayCursor.parse("tick:0", true).tick()).isZero();
    for (String bad : new String[] {"tick:", "tick:-1", "tick:x", "tick:1.5"}) {
      assertThatThrownBy(() -> ReplayCursor.parse(bad, true)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a tick is tick:N with N >= 0");
    }
  }
}
