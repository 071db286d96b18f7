package dev.streamfold.ledger.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.Tick;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The clock's pure rules: the next tick, the first covering tick, the stored form. */
class ClockRulesTest {
  private static Map<String, PositionVector> vectors(String... streamAndVector) {
    TreeMap<String, PositionVector> streams = new TreeMap<>();
    for (int i = 0; i < streamAndVector.length; i += 2) {
      streams.put(streamAndVector[i], PositionVector.parse(streamAndVector[i + 1]));
    }
    return streams;
  }

  private static Tick tick(long number, String... streamAndVector) {
    return new Tick(number, 1000 + number, new TreeMap<>(vectors(streamAndVector)));
  }

  @Test
  void theFirstTickCoversWhateverIsThereAndNumbersFromOne() {
    Optional<Tick> first = NextTick.after(Tick.ZERO, vectors("flights", "3:40:0:9,3:41:1:9", "airports", "2:5:-1:-1"), 5000);
    assertThat(first).isPresent();
    assertThat(first.get().number()).isEqualTo(1);
    assertThat(first.get().timeMs()).isEqualTo(5000);
    assertThat(first.get().streams()).isEqualTo(vectors("airports", "2:5:-1:-1", "flights", "3:40:0:9,3:41:1:9"));
  }

  @Test
  void noTickWhileNothingMoved() {
    Tick last = tick(7, "flights", "3:40:0:9");
    assertThat(NextTick.after(last, vectors("flights", "3:40:0:9"), 9000)).isEmpty();
    assertThat(NextTick.after(last, Map.of(), 9000)).as("nothing observed").isEmpty();
    assertThat(NextTick.after(Tick.ZERO, vectors(), 9000)).isEmpty();
  }

  @Test
  void theNextTickNeverCoversLessThanTheLast() {
    Tick last = tick(7, "flights", "3:40:0:9,3:41:1:9", "airports", "2:5:-1:-1");
    // partition 0 moved, partition 1 lagged (an older answer), airports was not observed, orders is new
    Tick next = NextTick.after(last, vectors("flights", "3:42:0:1,3:30:1:0", "orders", "8:0:-1:-1"), 500).orElseThrow();
    assertThat(next.number()).isEqualTo(8);
    assertThat(next.timeMs()).as("never before the last tick's time").isEqualTo(last.timeMs());
    assertThat(next.streams()).isEqualTo(vectors("airports", "2:5:-1:-1", "flights", "3:42:0:1,3:41:1:9",
        "orders", "8:0:-1:-1"));
    assertThat(next.coversAll(last)).isTrue();
    // only a lagging answer: no tick
    assertThat(NextTick.after(last, vectors("flights", "3:39:0:9"), 9000)).isEmpty();
    // a new partition's first position counts as moving
    assertThat(NextTick.after(last, vectors("flights", "1:0:2:-1"), 9000).orElseThrow().position("flights").size()).isEqualTo(3);
  }

  @Test
  void anEventsFirstCoveringTickIsTheSliceThatHoldsIt() {
    TickIndex index = new TickIndex(List.of(tick(4, "a", "1:10:-1:-1"), tick(5, "a", "1:20:-1:-1", "b", "2:3:0:-1"),
        tick(6, "a", "1:20:-1:-1", "b", "2:9:0:-1"), tick(7, "a", "1:35:-1:-1", "b", "2:9:0:-1")));
    assertThat(index.firstCovering("a", MessageId.parse("1:0:-1:-1"))).isEqualTo(OptionalLong.of(4));
    assertThat(index.firstCovering("a", MessageId.parse("1:10:-1:-1"))).isEqualTo(OptionalLong.of(4));
    assertThat(index.firstCovering("a", MessageId.parse("1:11:-1:-1"))).isEqualTo(OptionalLong.of(5));
    assertThat(index.firstCovering("b", MessageId.parse("2:4:0:-1"))).isEqualTo(OptionalLong.of(6));
    assertThat(index.firstCovering("a", MessageId.parse("1:35:-1:-1"))).isEqualTo(OptionalLong.of(7));
    assertThat(index.firstCovering("a", MessageId.parse("1:36:-1:-1"))).isEmpty();
    assertThat(index.firstCovering("c", MessageId.parse("1:0:-1:-1"))).isEmpty();
  }

  @Test
  void anIndexRefusesSkippedNumbersAndTicksThatGoBack() {
    assertThatThrownBy(() -> new TickIndex(List.of(tick(1, "a", "1:1:-1:-1"), tick(3, "a", "1:2:-1:-1"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tick 3 follows tick 1");
    assertThatThrownBy(() -> new TickIndex(List.of(tick(1, "a", "1:5:-1:-1"), tick(2, "a", "1:4:-1:-1"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("tick 2 covers less than tick 1");
  }

  @Test
  void theStoredFormRoundTripsAndABadOneSaysWhere() {
    Tick tick = tick(12, "flights", "3:40:0:9,3:41:1:9", "airports", "2:5:-1:-1");
    byte[] stored = TickCodec.encode(tick);
    assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo(
        "{\"tick\":12,\"time_ms\":1012,\"streams\":{\"airports\":\"2:5:-1:-1\",\"flights\":\"3:40:0:9,3:41:1:9\"}}");
    assertThat(TickCodec.decode(stored, "here")).isEqualTo(tick);
    assertThatThrownBy(() -> TickCodec.decode("{\"tick\":1}".getBytes(StandardCharsets.UTF_8), "clock at 1:2:-1:-1"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not a tick at clock at 1:2:-1:-1");
    assertThatThrownBy(() -> TickCodec.decode("{\"tick\":1,\"time_ms\":2,\"streams\":{\"a\":\"x\"}}"
        .getBytes(StandardCharsets.UTF_8), "there")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("invalid position vector 'x'");
  }

  @Test
  void aSliceReadsWhatTheTickAddsInStreamThenPartitionOrder() {
    Tick previous = tick(4, "flights", "3:40:0:9,3:41:1:9", "airports", "2:5:-1:-1");
    Tick tick = tick(5, "flights", "3:40:0:9,3:50:1:2,4:0:2:-1", "airports", "2:7:-1:-1", "orders", "8:1:-1:-1");
    TickSlice slice = TickSlice.of(previous, tick);
    assertThat(slice.tick()).isEqualTo(5);
    assertThat(slice.ranges()).containsExactly(
        new TickSlice.Range("airports", -1, Optional.of(MessageId.parse("2:5:-1:-1")), MessageId.parse("2:7:-1:-1")),
        new TickSlice.Range("flights", 1, Optional.of(MessageId.parse("3:41:1:9")), MessageId.parse("3:50:1:2")),
        new TickSlice.Range("flights", 2, Optional.empty(), MessageId.parse("4:0:2:-1")),
        new TickSlice.Range("orders", -1, Optional.empty(), MessageId.parse("8:1:-1:-1")));
    assertThat(TickSlice.of(Tick.ZERO, tick(1, "a", "1:1:-1:-1")).ranges()).singleElement()
        .isEqualTo(new TickSlice.Range("a", -1, Optional.empty(), MessageId.parse("1:1:-1:-1")));
  }

  @Test
  void aSliceRefusesTicksThatAreNotConsecutiveOrGoBack() {
    Tick previous = tick(4, "flights", "3:40:0:9", "airports", "2:5:-1:-1");
    assertThatThrownBy(() -> TickSlice.of(previous, tick(6, "flights", "3:41:0:9")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tick 6 does not follow tick 4");
    assertThatThrownBy(() -> TickSlice.of(previous, tick(5, "flights", "3:39:0:9", "airports", "2:5:-1:-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tick 5 covers less of flights partition 0 (3:39:0:9) than tick 4 (3:40:0:9)");
    assertThatThrownBy(() -> TickSlice.of(previous, tick(5, "flights", "3:41:0:9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tick 5 does not cover airports partition -1 up to 2:5:-1:-1 as tick 4 does");
  }
}
