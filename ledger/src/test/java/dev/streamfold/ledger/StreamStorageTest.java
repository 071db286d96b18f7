package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StreamStorageTest {
  private static final String S3 = "S3 bucket streamfold-ledger";

  /** Two partitions: partition 0 offloaded its segment 10 (deleted locally), partition 1 holds 11 and 13. */
  private static final StreamStorage STORAGE = new StreamStorage(new StreamRef("acme", "flights"), List.of(
      new LedgerSegment(10, 50, 5_000, true, true, S3, 0, false),
      new LedgerSegment(12, 7, 700, false, false, "bookkeeper", 0, true),
      new LedgerSegment(11, 40, 4_000, false, false, "bookkeeper", 1, false),
      new LedgerSegment(13, 2, 200, false, false, "bookkeeper", 1, true)), 4_900, 5_000);

  @Test
  void theEventsAfterAMessageIdAreInItsSegmentOrTheNextOneOfItsPartition() {
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("10:3:0:-1")))).map(LedgerSegment::ledgerId)
        .contains(10L);
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("11:39:1:-1")))).map(LedgerSegment::ledgerId)
        .contains(11L);
    // partition 1's segment 11 has a lower ledger id than partition 0's 12, but it is not partition 0's
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("10:49:0:-1")))).map(LedgerSegment::ledgerId)
        .contains(10L);
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("12:6:0:-1")))).map(LedgerSegment::ledgerId)
        .contains(12L);
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("12:0:1:-1")))).map(LedgerSegment::ledgerId)
        .contains(13L);
    assertThat(STORAGE.segmentAfter(Optional.of(MessageId.parse("14:0:1:-1")))).isEmpty();
    assertThat(STORAGE.segmentAfter(Optional.empty())).map(LedgerSegment::ledgerId).contains(10L);
  }

  @Test
  void whereTheNextEventsAreNamesTheS3EndpointOnlyForSegmentsDeletedLocally() {
    assertThat(STORAGE.whereAfter(Optional.empty())).isEqualTo("the next events are in segment 10, offloaded to "
        + S3 + " and deleted locally: is the S3 endpoint reachable?");
    assertThat(STORAGE.whereAfter(Optional.of(MessageId.parse("11:2:1:-1"))))
        .isEqualTo("the next events are in segment 11, held by BookKeeper");
    assertThat(STORAGE.whereAfter(Optional.of(MessageId.parse("99:0:1:-1")))).isEqualTo("no segment found");
  }

  @Test
  void whereTheLatestEventIsSkipsAnOpenSegmentWithoutEntries() {
    StreamStorage rolledOver = new StreamStorage(new StreamRef("acme", "flights"), List.of(
        new LedgerSegment(10, 50, 5_000, true, true, S3, -1, false),
        new LedgerSegment(11, 0, 0, false, false, "bookkeeper", -1, true)), 0, 5_000);
    assertThat(rolledOver.whereLatest(-1)).isEqualTo("the latest events are in segment 10, offloaded to " + S3
        + " and deleted locally: is the S3 endpoint reachable?");
    assertThat(STORAGE.whereLatest(1)).isEqualTo("the latest events are in segment 13, held by BookKeeper");
    assertThat(STORAGE.whereLatest(2)).isEqualTo("no segment holds events");
  }
}
