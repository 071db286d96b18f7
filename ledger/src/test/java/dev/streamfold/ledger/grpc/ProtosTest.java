package dev.streamfold.ledger.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.UnknownFieldSet;
import dev.streamfold.api.v1.Event;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProtosTest {

  @Test
  void sizeAtMostIsNeverBelowTheSerializedSize() {
    String emoji = "\uD83D\uDE00";
    List<Event> events = List.of(
        Event.getDefaultInstance(),
        Event.newBuilder().setKey("k").setPayloadJson("{}").build(),
        Event.newBuilder().setKey("k".repeat(300)).setType("t").setEventTimeMs(Long.MAX_VALUE)
            .setPayloadJson("{\"a\":\"" + "x".repeat(200_000) + "\"}").setIdempotencyKey("i".repeat(1024)).build(),
        Event.newBuilder().setKey("\u00e9\u20ac" + emoji).setPayloadJson("{\"s\":\"" + "\u20ac".repeat(50_000) + "\"}")
            .setType(emoji.repeat(20)).setEventTimeMs(-1).build(),
        Event.newBuilder().setKey("k").setPayloadJson("{}").putHeaders("h", "v".repeat(1000)).build(),
        Event.newBuilder().setKey("k").setPayloadJson("{}").setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addLengthDelimited(
                com.google.protobuf.ByteString.copyFromUtf8("x".repeat(5000))).build()).build()).build());
    for (Event e : events) {
      assertThat(Protos.sizeAtMost(e)).as("%s", e.getKey()).isGreaterThanOrEqualTo(e.getSerializedSize());
    }
  }

  @Test
  void sizeAtMostKnowsEveryFieldOfEvent() {
    // A new field of Event must be counted in Protos.sizeAtMost: this fails until it is.
    assertThat(Event.getDescriptor().getFields()).extracting(FieldDescriptor::getNumber, FieldDescriptor::getName)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "key"),
            org.assertj.core.groups.Tuple.tuple(2, "type"),
            org.assertj.core.groups.Tuple.tuple(3, "event_time_ms"),
            org.assertj.core.groups.Tuple.tuple(4, "payload_json"),
            org.assertj.core.groups.Tuple.tuple(5, "idempotency_key"),
            org.assertj.core.groups.Tuple.tuple(6, "headers"));
  }
}
