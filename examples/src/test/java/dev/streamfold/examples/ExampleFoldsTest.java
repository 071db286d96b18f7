package dev.streamfold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.transforms.fold.Event;
import dev.streamfold.transforms.fold.FoldClasses;
import dev.streamfold.transforms.fold.Transformation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The example folds as plain functions: how to test a transformation without any server. */
class ExampleFoldsTest {
  private static Event flight(String origin, String destination, Integer delay) {
    return Event.of(origin, 0, "{\"origin\":\"" + origin + "\",\"destination\":\"" + destination + "\""
        + (delay == null ? "" : ",\"delay\":" + delay) + "}");
  }

  /** Fold events one key at a time, as the job does. */
  @SuppressWarnings("unchecked")
  private static <S> Map<String, Object> fold(Transformation<S> t, List<Event> events) {
    S state = t.initial();
    for (Event e : events) {
      state = t.apply(state, e);
    }
    return (Map<String, Object>) t.row(state);
  }

  @Test
  void streakCountsConsecutiveDelayedFlightsAndKeepsTheLongest() {
    LongestDelayStreak streak = new LongestDelayStreak();
    assertThat(streak.key(flight("ATL", "ORD", 3))).isEqualTo("ATL-ORD");
    Map<String, Object> row = fold(streak, List.of(flight("ATL", "ORD", 20), flight("ATL", "ORD", 15),
        flight("ATL", "ORD", 99), flight("ATL", "ORD", 14), flight("ATL", "ORD", 30), flight("ATL", "ORD", null)));
    assertThat(row).containsEntry("longest_streak", 3).containsEntry("current_streak", 1)
        .containsEntry("flights", 6L).containsEntry("delayed", 4L);
  }

  @Test
  void flightsWithoutARouteAreLeftOut() {
    assertThat(new LongestDelayStreak().key(Event.of("k", 0, "{\"origin\":\"ATL\"}"))).isNull();
    assertThat(new LastDelays().key(Event.of("k", 0, "{\"origin\":\"ATL\"}"))).isNull();
    assertThat(new LastDelays().key(Event.of("k", 0, "{\"origin\":\"ATL\",\"delay\":\"late\"}"))).isNull();
  }

  @Test
  void lastDelaysKeepsTheNewestFiveInOrder() {
    LastDelays last = new LastDelays();
    Map<String, Object> row = fold(last, List.of(flight("ATL", "X", 1), flight("ATL", "X", 2), flight("ATL", "X", 3),
        flight("ATL", "X", 4), flight("ATL", "X", 5), flight("ATL", "X", 6), flight("ATL", "X", -7)));
    assertThat((long[]) row.get("last_delays")).containsExactly(3, 4, 5, 6, -7);
    assertThat(row.get("flights")).isEqualTo(7L);
    assertThat((long[]) fold(last, List.of(flight("ATL", "X", 9))).get("last_delays")).containsExactly(9);
  }

  @Test
  void statesSerializeWithFlinkSerializersNotKryo() {
    assertThat(FoldClasses.stateType(new LongestDelayStreak()).toString()).contains("PojoType");
    assertThat(FoldClasses.stateType(new LastDelays()).toString()).contains("PojoType");
  }
}
