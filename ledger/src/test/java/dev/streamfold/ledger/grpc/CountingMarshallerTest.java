package dev.streamfold.ledger.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Event;
import org.junit.jupiter.api.Test;

class CountingMarshallerTest {
  @Test
  void tooManyEventsAreCountedOnTheWireAndNotBuilt() throws Exception {
    AppendRequest.Builder many = AppendRequest.newBuilder().setTenant("t").setStream("s").setRequestSeq(7);
    for (int i = 0; i < 1_000_000; i++) {
      many.addEvents(Event.getDefaultInstance());
    }
    AppendRequest parsed = IngestGrpcService.CountingMarshaller.parse(many.build().toByteArray());
    assertThat(parsed.getEventsCount()).isZero();
    assertThat(parsed.getTenant()).isEqualTo("t");
    assertThat(parsed.getStream()).isEqualTo("s");
    assertThat(parsed.getRequestSeq()).isEqualTo(7);
    assertThat(parsed.getUnknownFields().asMap()).hasSize(1);
  }

  @Test
  void aRequestWithinTheLimitIsParsedWhole() throws Exception {
    AppendRequest.Builder some = AppendRequest.newBuilder().setTenant("t").setStream("s");
    for (int i = 0; i < IngestGrpcService.MAX_EVENTS_PER_REQUEST; i++) {
      some.addEvents(Event.newBuilder().setKey("k" + i).setPayloadJson("{}"));
    }
    AppendRequest request = some.build();
    assertThat(IngestGrpcService.CountingMarshaller.parse(request.toByteArray())).isEqualTo(request);
  }

  @Test
  void readsAStreamWhateverItsAnnouncedLength() throws Exception {
    byte[] data = new byte[100_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) i;
    }
    for (int announced : new int[] {0, -1, 10, 99_999, 100_000, 200_000}) {
      java.io.InputStream stream = new java.io.ByteArrayInputStream(data) {
        @Override
        public synchronized int available() {
          return announced;
        }
      };
      assertThat(IngestGrpcService.CountingMarshaller.readAll(stream)).as("announced %d", announced).isEqualTo(data);
    }
  }
}
