package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The tick tracker's position at barriers and its exact resume after a tick, with Flink's operator test harness. */
class TickTrackerTest {

  private static SourceEvent event(String stream, String messageId, long tick) {
    SourceEvent event = new SourceEvent();
    event.position(MessageId.parse(messageId));
    event.stream = stream;
    event.tick = tick;
    event.payload = "{}";
    return event;
  }

  /** Tick 1: two flights (partitions 0 and 1) and an airport; tick 2: a flight; tick 3: nothing of these streams. */
  private static List<SourceEvent> ticks() {
    return List.of(event("flights", "11:1:0:-1", 1), event("flights", "12:1:1:-1", 1), event("airports", "10:0:-1:-1", 1),
        SourceEvent.endOfTick(1), event("flights", "11:2:0:-1", 2), SourceEvent.endOfTick(2), SourceEvent.endOfTick(3));
  }

  private static List<String> passed(OneInputStreamOperatorTestHarness<SourceEvent, SourceEvent> harness) {
    List<String> ids = new ArrayList<>();
    for (Object o : harness.getOutput()) {
      if (o instanceof StreamRecord<?> record && record.getValue() instanceof SourceEvent e) {
        ids.add(e.stream + " " + e.messageId);
      }
    }
    return ids;
  }

  private static List<ViewChange> progress(OneInputStreamOperatorTestHarness<SourceEvent, SourceEvent> harness) {
    List<ViewChange> changes = new ArrayList<>();
    var side = harness.getSideOutput(PositionTracker.PROGRESS);
    if (side != null) {
      side.forEach(r -> changes.add(r.getValue()));
    }
    return changes;
  }

  @Test
  void eventsPassMarkersDoNotAndEachBarrierCarriesTheLastTickReadWhole() throws Exception {
    try (var harness = new OneInputStreamOperatorTestHarness<>(new TickTracker())) {
      harness.open();
      harness.prepareSnapshotPreBarrier(1);
      List<SourceEvent> ticks = ticks();
      for (int i = 0; i < 4; i++) {
        harness.processElement(new StreamRecord<>(ticks.get(i)));
      }
      harness.prepareSnapshotPreBarrier(2);
      for (int i = 4; i < ticks.size(); i++) {
        harness.processElement(new StreamRecord<>(ticks.get(i)));
      }
      harness.prepareSnapshotPreBarrier(3);
      assertThat(passed(harness)).containsExactly("flights 11:1:0:-1", "flights 12:1:1:-1", "airports 10:0:-1:-1",
          "flights 11:2:0:-1");
      assertThat(progress(harness)).extracting(p -> p.position + " / " + p.eventsApplied).containsExactly(
          "0 / 0",
          "1 airports=10:0:-1:-1 flights=11:1:0:-1,12:1:1:-1 / 3",
          // tick 3 holds no event of these streams: the position still moves to it, with tick 2's vectors
          "3 airports=10:0:-1:-1 flights=11:2:0:-1,12:1:1:-1 / 4");
    }
  }

  @Test
  void aRestoredTrackerDropsTheTicksItAppliedAndContinuesExactly() throws Exception {
    OperatorSubtaskState snapshot;
    List<SourceEvent> ticks = ticks();
    try (var first = new OneInputStreamOperatorTestHarness<>(new TickTracker())) {
      first.open();
      for (int i = 0; i < 4; i++) {
        first.processElement(new StreamRecord<>(ticks.get(i)));
      }
      snapshot = first.snapshot(1, 1L);
      first.processElement(new StreamRecord<>(ticks.get(4))); // read, never checkpointed
    }
    try (var restored = new OneInputStreamOperatorTestHarness<>(new TickTracker())) {
      restored.initializeState(snapshot);
      restored.open();
      // the source starts after the view's committed tick, at or before the checkpoint's: here from tick 1 again
      for (SourceEvent e : ticks) {
        restored.processElement(new StreamRecord<>(e));
      }
      restored.prepareSnapshotPreBarrier(2);
      assertThat(passed(restored)).containsExactly("flights 11:2:0:-1");
      assertThat(progress(restored)).extracting(p -> p.position + " / " + p.eventsApplied)
          .containsExactly("3 airports=10:0:-1:-1 flights=11:2:0:-1,12:1:1:-1 / 4");
    }
  }

  private static SourceEvent click(String messageId, long tick, long eventTimeMs) {
    SourceEvent event = event("clicks", messageId, tick);
    event.eventTimeMs = eventTimeMs;
    return event;
  }

  /**
   * The clicks' watermark (delay 10 s) reaches 50 s at the click of 60 s; a click of 45 s after it is behind, also
   * after a restore from a checkpoint taken between the two. The pages stream has no windows: not counted.
   */
  @Test
  void countsTheEventsOfWindowedStreamsBehindTheirOwnWatermarkAcrossARestore() throws Exception {
    OperatorSubtaskState snapshot;
    java.util.Map<String, Long> delays = java.util.Map.of("clicks", 10_000L);
    try (var first = new OneInputStreamOperatorTestHarness<>(new TickTracker().countEventsBehindWatermark(delays))) {
      first.open();
      first.processElement(new StreamRecord<>(click("5:1:-1:-1", 1, 30_000)));
      first.processElement(new StreamRecord<>(click("5:2:-1:-1", 1, 60_000)));
      SourceEvent page = event("pages", "6:1:-1:-1", 1);
      page.eventTimeMs = 0; // far behind the clicks' watermark, but no window reads the pages' time
      first.processElement(new StreamRecord<>(page));
      first.processElement(new StreamRecord<>(SourceEvent.endOfTick(1)));
      snapshot = first.snapshot(1, 1L);
    }
    try (var restored = new OneInputStreamOperatorTestHarness<>(new TickTracker().countEventsBehindWatermark(delays))) {
      restored.initializeState(snapshot);
      restored.open();
      restored.processElement(new StreamRecord<>(click("5:3:-1:-1", 2, 45_000))); // behind 50 s
      restored.processElement(new StreamRecord<>(click("5:4:-1:-1", 2, 55_000))); // not behind
      restored.processElement(new StreamRecord<>(SourceEvent.endOfTick(2)));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(progress(restored)).extracting(p -> p.eventsApplied + " / " + p.eventsBehindWatermark)
          .containsExactly("5 / 1");
    }
  }
}
