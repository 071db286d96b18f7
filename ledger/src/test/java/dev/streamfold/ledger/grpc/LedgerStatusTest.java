package dev.streamfold.ledger.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.schema.InvalidEventException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerStatusTest {
  @Test
  void aRefusalOfManyEventsFitsAClientsDefaultMetadataLimit() throws Exception {
    // 100 violations passed the 8 KiB of trailers a gRPC client accepts: it saw "INTERNAL: http2 exception"
    List<InvalidEventException> all = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      all.add(new InvalidEventException(i, "payload_json.y", "must be a 32-bit integer (column y INT), got"
          + " the string 's" + i + "' and then some more words to make the reason as long as real ones are".repeat(3)));
    }
    StatusRuntimeException e = LedgerStatus.toStatus(InvalidEventException.ofRequest(all, 2_000, 2_000));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(e);
    com.google.rpc.BadRequest bad = details.getDetails(0).unpack(com.google.rpc.BadRequest.class);
    assertThat(bad.getFieldViolationsCount()).isEqualTo(LedgerStatus.MAX_VIOLATIONS);
    assertThat(bad.getFieldViolations(0).getField()).isEqualTo("events[0].payload_json.y");
    assertThat(bad.getFieldViolations(0).getDescription()).hasSizeLessThanOrEqualTo(LedgerStatus.MAX_VIOLATION_CHARS + 1);
    // the trailers carry the details (base64) and the message: well under 8 KiB
    assertThat(details.toByteArray().length * 4 / 3 + e.getStatus().getDescription().length()).isLessThan(6_000);
  }
}
