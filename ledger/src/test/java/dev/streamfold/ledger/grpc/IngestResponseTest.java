package dev.streamfold.ledger.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.core.MessageId;
import dev.streamfold.ledger.Appended;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IngestResponseTest {
  @Test
  void messageIdTextsAreEachIdsOwnTextInOrder() {
    List<Appended> appended = List.of(
        new Appended(new MessageId(12, 345, -1, 0), false),
        new Appended(new MessageId(12, 345, -1, 1), true),
        new Appended(new MessageId(12, 346, -1, 0), false), // next entry
        new Appended(new MessageId(12, 346, 2, 0), false), // same entry number, other partition
        new Appended(new MessageId(13, 346, 2, 0), false), // other ledger
        new Appended(new MessageId(13, 346, 2, -1), false), // not batched
        new Appended(new MessageId(12, 345, -1, 7), true)); // an earlier entry again (a repeat)
    AppendResponse response = IngestGrpcService.response(AppendRequest.newBuilder().setRequestSeq(42).build(),
        appended);
    List<String> expected = new ArrayList<>();
    List<Boolean> repeats = new ArrayList<>();
    for (Appended a : appended) {
      expected.add(a.messageId().toString());
      repeats.add(a.repeat());
    }
    assertEquals(List.of("12:345:-1:0", "12:345:-1:1", "12:346:-1:0", "12:346:2:0", "13:346:2:0", "13:346:2:-1",
        "12:345:-1:7"), expected);
    assertEquals(expected, response.getMessageIdsList());
    assertEquals(repeats, response.getRepeatList());
    assertEquals(42, response.getRequestSeq());
  }

  @Test
  void emptyRequestGetsAnEmptyReply() {
    AppendResponse response = IngestGrpcService.response(AppendRequest.newBuilder().setRequestSeq(1).build(), List.of());
    assertEquals(0, response.getMessageIdsCount());
    assertEquals(0, response.getRepeatCount());
  }
}
