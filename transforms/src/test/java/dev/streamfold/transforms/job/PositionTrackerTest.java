package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/** The position tracker's checkpoint and exact resume, with Flink's operator test harness. */
class PositionTrackerTest {
  private static final PayloadParser PARSER = new PayloadParser(List.of(new StreamColumn("n", "BIGINT")));

  /** Ten events sent as one Pulsar batch: one entry (7:42), batch indexes 0..9. */
  private static SourceEvent batched(int index) {
    return new SourceEvent("7:42:-1:" + index, "k", 1_000 + index, index, "{\"n\":" + index + "}");
  }

  private static OneInputStreamOperatorTestHarness<SourceEvent, Row> harness() throws Exception {
    return new OneInputStreamOperatorTestHarness<>(new PositionTracker<>(PARSER));
  }

  private static List<Long> rows(OneInputStreamOperatorTestHarness<SourceEvent, Row> harness) {
    List<Long> values = new ArrayList<>();
    for (Object o : harness.getOutput()) {
      if (o instanceof StreamRecord<?> record && record.getValue() instanceof Row row) {
        values.add((Long) row.getField(0));
      }
    }
    return values;
  }

  private static List<ViewChange> progress(OneInputStreamOperatorTestHarness<SourceEvent, Row> harness) {
    List<ViewChange> changes = new ArrayList<>();
    var side = harness.getSideOutput(PositionTracker.PROGRESS);
    if (side != null) {
      side.forEach(r -> changes.add(r.getValue()));
    }
    return changes;
  }

  @Test
  void aCheckpointInsideABatchResumesAtTheNextMessageOfThatBatch() throws Exception {
    OperatorSubtaskState snapshot;
    try (OneInputStreamOperatorTestHarness<SourceEvent, Row> first = harness()) {
      first.open();
      for (int i = 0; i < 4; i++) {
        first.processElement(new StreamRecord<>(batched(i)));
      }
      first.prepareSnapshotPreBarrier(1);
      snapshot = first.snapshot(1, 1L);
      assertThat(progress(first)).singleElement().satisfies(p -> {
        assertThat(p.position).isEqualTo("7:42:-1:3");
        assertThat(p.eventsApplied).isEqualTo(4);
      });
      // the crash: events 4..9 were read but their effects were never checkpointed
      for (int i = 4; i < 10; i++) {
        first.processElement(new StreamRecord<>(batched(i)));
      }
    }
    try (OneInputStreamOperatorTestHarness<SourceEvent, Row> restored = harness()) {
      restored.initializeState(snapshot);
      restored.open();
      // the source re-reads the whole entry (Pulsar positions per entry), then goes on
      for (int i = 0; i < 10; i++) {
        restored.processElement(new StreamRecord<>(batched(i)));
      }
      restored.processElement(new StreamRecord<>(new SourceEvent("7:43:-1:-1", "k", 2_000, 10, "{\"n\":10}")));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(rows(restored)).containsExactly(4L, 5L, 6L, 7L, 8L, 9L, 10L);
      assertThat(progress(restored)).singleElement().satisfies(p -> {
        assertThat(p.position).isEqualTo("7:43:-1:-1");
        assertThat(p.eventsApplied).isEqualTo(11);
      });
    }
  }

  @Test
  void aFreshTrackerDropsNothing() throws Exception {
    try (OneInputStreamOperatorTestHarness<SourceEvent, Row> fresh = harness()) {
      fresh.open();
      for (int i = 0; i < 10; i++) {
        fresh.processElement(new StreamRecord<>(batched(i)));
      }
      assertThat(rows(fresh)).hasSize(10);
    }
  }

  @Test
  void signalsTheBackfillTargetOnceWhenItsCountIsApplied() throws Exception {
    java.util.concurrent.atomic.AtomicInteger signals = new java.util.concurrent.atomic.AtomicInteger();
    try (OneInputStreamOperatorTestHarness<SourceEvent, Row> tracker = new OneInputStreamOperatorTestHarness<>(
        new PositionTracker<>(PARSER).signalBackfillTargetAt(4))) {
      tracker.open();
      org.apache.flink.api.common.JobID job = tracker.getEnvironment().getJobID();
      BackfillSignals.register(job, signals::incrementAndGet);
      try {
        for (int i = 0; i < 3; i++) {
          tracker.processElement(new StreamRecord<>(batched(i)));
        }
        assertThat(signals).as("before the target").hasValue(0);
        tracker.processElement(new StreamRecord<>(batched(3)));
        assertThat(signals).as("at the target").hasValue(1);
        BackfillSignals.register(job, signals::incrementAndGet); // a listener left (or re-registered) is not run again
        for (int i = 4; i < 10; i++) {
          tracker.processElement(new StreamRecord<>(batched(i)));
        }
        assertThat(signals).as("past the target").hasValue(1);
        assertThat(rows(tracker)).hasSize(10);
      } finally {
        BackfillSignals.unregister(job);
      }
    }
  }
}
