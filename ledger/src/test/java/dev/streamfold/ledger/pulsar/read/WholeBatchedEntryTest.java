package dev.streamfold.ledger.pulsar.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import org.junit.jupiter.api.Test;

/** The refusal of a message ID with batch index -1 that names a batched entry ({@code StreamReader.locate}). */
class WholeBatchedEntryTest {
  private static final StreamRef STREAM = new StreamRef("acme", "flights");

  @Test
  void namesTheEntryAsBatchedAndTheBatchIndexesItHolds() {
    assertThat(StreamReader.wholeBatchedEntry(STREAM, MessageId.parse("12:0:-1:-1"), 1000)).isEqualTo(
        "message ID 12:0:-1:-1 names no event of stream acme/flights: entry 12:0 is batched (the ingestion API batches"
            + " the events it appends), so each of its events has its own batch index, and it holds batch indexes 0 to"
            + " 999 (12:0:-1:0 to 12:0:-1:999; up to and including 12:0:-1:999 is the whole entry); batch index -1"
            + " names an entry that is not batched");
  }

  @Test
  void aPartitionsEntryAndAnUnknownBatchSize() {
    assertThat(StreamReader.wholeBatchedEntry(STREAM, MessageId.parse("7:3:2:-1"), 1))
        .contains("entry 7:3 is batched").contains("it holds batch indexes 0 to 0 (7:3:2:0 to 7:3:2:0;");
    assertThat(StreamReader.wholeBatchedEntry(STREAM, MessageId.parse("7:3:2:-1"), 0))
        .contains("its batch indexes start at 0 (7:3:2:0 is its first event)");
  }
}
