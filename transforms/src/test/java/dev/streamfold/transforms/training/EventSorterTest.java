package dev.streamfold.transforms.training;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.transforms.source.SourceEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventSorterTest {
  @TempDir
  Path dir;

  @Test
  void sortsByKeyTiesInTheOrderAddedInMemoryAndThroughRunsOnDisk() throws Exception {
    for (long buffer : new long[] {EventSorter.DEFAULT_BUFFER_BYTES, 4_000}) {
      Path spill = dir.resolve("spill-" + buffer);
      List<SourceEvent> added = new ArrayList<>();
      List<Long> keys = new ArrayList<>();
      Random random = new Random(7);
      try (EventSorter sorter = new EventSorter(buffer, spill)) {
        for (int i = 0; i < 2_000; i++) {
          SourceEvent e = new SourceEvent("1:" + i + ":-1:-1", "k" + (i % 7), random.nextInt(50), i, null);
          e.payloadBytes = ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
          e.stream = i % 2 == 0 ? "flights" : "airports";
          e.publishTimeMs = 1_000 + i;
          added.add(e);
          keys.add(e.eventTimeMs);
          sorter.add(e.eventTimeMs, e);
        }
        assertThat(sorter.runs() > 10).isEqualTo(buffer == 4_000);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < added.size(); i++) {
          expected.add(i);
        }
        expected.sort(Comparator.<Integer>comparingLong(keys::get).thenComparingInt(i -> i));
        Iterator<SourceEvent> sorted = sorter.sorted();
        for (int i : expected) {
          SourceEvent got = sorted.next();
          SourceEvent want = added.get(i);
          assertThat(got.messageId).isEqualTo(want.messageId);
          assertThat(got.stream).isEqualTo(want.stream);
          assertThat(got.publishTimeMs).isEqualTo(want.publishTimeMs);
          assertThat(got.payloadText()).isEqualTo("{\"n\":" + i + "}");
        }
        assertThat(sorted.hasNext()).isFalse();
      }
      assertThat(Files.exists(spill)).as("runs deleted").isFalse();
    }
  }
}
