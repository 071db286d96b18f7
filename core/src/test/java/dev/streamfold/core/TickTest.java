package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TickTest {
  private static Tick tick(long number, String... streamAndVector) {
    TreeMap<String, PositionVector> streams = new TreeMap<>();
    for (int i = 0; i < streamAndVector.length; i += 2) {
      streams.put(streamAndVector[i], PositionVector.parse(streamAndVector[i + 1]));
    }
    return new Tick(number, 1000 + number, streams);
  }

  @Test
  void coversAnEventAtOrBeforeItsStreamsVector() {
    Tick tick = tick(3, "flights", "5:10:0:-1,5:7:1:3", "airports", "4:2:-1:-1");
    assertThat(tick.covers("flights", MessageId.parse("5:10:0:-1"))).isTrue();
    assertThat(tick.covers("flights", MessageId.parse("5:9:0:-1"))).isTrue();
    assertThat(tick.covers("flights", MessageId.parse("5:11:0:-1"))).isFalse();
    assertThat(tick.covers("flights", MessageId.parse("5:7:1:3"))).isTrue();
    assertThat(tick.covers("flights", MessageId.parse("5:7:1:4"))).as("a later message of the same batch").isFalse();
    assertThat(tick.covers("flights", MessageId.parse("1:0:2:-1"))).as("a partition the tick does not list").isFalse();
    assertThat(tick.covers("airports", MessageId.parse("3:99:-1:-1"))).isTrue();
    assertThat(tick.covers("orders", MessageId.parse("1:0:-1:-1"))).isFalse();
    assertThat(Tick.ZERO.covers("flights", MessageId.parse("0:0:-1:-1"))).isFalse();
  }

  @Test
  void coversAllOfAnEarlierTickOnlyWhenEveryPartitionReachedIt() {
    Tick earlier = tick(1, "flights", "5:10:0:-1,5:7:1:3");
    assertThat(tick(2, "flights", "5:11:0:-1,5:7:1:3", "airports", "4:2:-1:-1").coversAll(earlier)).isTrue();
    assertThat(tick(2, "flights", "5:11:0:-1,5:7:1:2").coversAll(earlier)).isFalse();
    assertThat(tick(2, "airports", "4:2:-1:-1").coversAll(earlier)).isFalse();
    assertThat(earlier.coversAll(Tick.ZERO)).isTrue();
  }

  @Test
  void refusesANegativeNumberAndAStreamWithoutPosition() {
    assertThatThrownBy(() -> tick(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> tick(2, "flights", "")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'flights' without a position");
  }

  @Test
  void listsStreamsByName() {
    assertThat(tick(1, "zeta", "1:1:-1:-1", "alpha", "1:2:-1:-1").streams().keySet()).containsExactly("alpha", "zeta");
    assertThat(tick(1).position("flights")).isEqualTo(PositionVector.EMPTY);
  }
}
