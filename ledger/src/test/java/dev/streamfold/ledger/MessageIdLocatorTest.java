package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MessageIdLocatorTest {
  /** Streams' segments as the ledger lists them now; counts the listings. */
  private static final class Segments implements TieredStorage {
    final Map<String, List<LedgerSegment>> byStream = new HashMap<>();
    int listings;

    void add(String stream, int partition, long ledgerId) {
      byStream.computeIfAbsent(stream, s -> new ArrayList<>())
          .add(new LedgerSegment(ledgerId, 1, 10, false, false, "bookkeeper", partition, true));
    }

    @Override
    public StreamStorage storage(StreamRef stream) {
      listings++;
      return new StreamStorage(stream, byStream.getOrDefault(stream.stream(), List.of()), 0, 0);
    }

    @Override
    public void setOffloadPolicy(String tenant, long thresholdBytes, long deletionLagMs) {
      throw new UnsupportedOperationException();
    }

    @Override
    public OffloadStatus offload(StreamRef stream) {
      throw new UnsupportedOperationException();
    }

    @Override
    public OffloadStatus offloadStatus(StreamRef stream) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void findsTheStreamWhoseSegmentOfThatPartitionIsTheMessageIdsLedger() {
    Segments segments = new Segments();
    segments.add("airports", -1, 10);
    segments.add("flights", 0, 11);
    segments.add("flights", 1, 12);
    MessageIdLocator locator = new MessageIdLocator(segments);
    List<String> both = List.of("airports", "flights");
    assertThat(locator.streamOf("acme", both, new MessageId(10, 3, -1, -1))).contains("airports");
    assertThat(locator.streamOf("acme", both, new MessageId(12, 0, 1, -1))).contains("flights");
    // ledger 12 is partition 1's: a message ID naming partition 0 is in none of them
    assertThat(locator.streamOf("acme", both, new MessageId(12, 0, 0, -1))).isEmpty();
    assertThat(locator.streamOf("acme", List.of("airports"), new MessageId(11, 0, 0, -1))).isEmpty();
  }

  @Test
  void keepsTheSegmentsSeenAndListsAgainOnlyForALedgerItHasNotSeen() {
    Segments segments = new Segments();
    segments.add("flights", -1, 11);
    MessageIdLocator locator = new MessageIdLocator(segments);
    assertThat(locator.streamOf("acme", List.of("flights"), new MessageId(11, 0, -1, -1))).contains("flights");
    int listed = segments.listings;
    assertThat(locator.streamOf("acme", List.of("flights"), new MessageId(11, 5, -1, -1))).contains("flights");
    assertThat(segments.listings).isEqualTo(listed);
    segments.add("flights", -1, 14); // the segment rolled over: a new ledger
    assertThat(locator.streamOf("acme", List.of("flights"), new MessageId(14, 0, -1, -1))).isEqualTo(Optional.of("flights"));
    assertThat(segments.listings).isEqualTo(listed + 1);
  }
}
