package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.UpdateStreamSchemaRequest;
import dev.streamfold.testkit.Testkit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream's schema end to end: declared over gRPC with NOT NULL and DEFAULT, enforced on append, evolved
 * with a new column that has a DEFAULT, and a SQL view created afterwards reads the old events with that
 * default (typed), through the query-service.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StreamSchemaEndToEndIT {
  private static final String TENANT = Testkit.uniqueName("schema");
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("server-schema"), TENANT, Duration.ofMillis(500));

  private static Event order(String key, String payload) {
    return Event.newBuilder().setKey(key).setEventTimeMs(1_000).setPayloadJson(payload).build();
  }

  @Test
  void oldEventsAreReadWithTheDefaultOfAColumnAddedLater() {
    var admin = StreamAdminGrpc.newBlockingStub(SERVER.channel());
    var ingest = IngestServiceGrpc.newBlockingStub(SERVER.channel());
    Column amount = Column.newBuilder().setName("amount").setType("BIGINT").setRequired(true).build();
    admin.createStream(CreateStreamRequest.newBuilder().setTenant(TENANT).setName("orders").addColumns(amount).build());
    ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("orders").addEvents(order("a", "{\"amount\":10}"))
        .addEvents(order("a", "{\"amount\":20}")).addEvents(order("b", "{\"amount\":5}")).build());

    StatusRuntimeException missing = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("orders")
            .addEvents(order("c", "{\"note\":\"no amount\"}")).build()));
    assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(missing.getStatus().getDescription()).startsWith("event 0: field 'payload_json.amount' is missing or null");

    Column currency = Column.newBuilder().setName("currency").setType("STRING").setDefaultJson("\"EUR\"").build();
    StreamInfo evolved = admin.updateStreamSchema(UpdateStreamSchemaRequest.newBuilder().setTenant(TENANT).setName("orders")
        .addColumns(amount).addColumns(currency).build());
    assertThat(evolved.getColumnsList()).containsExactly(amount, currency);
    StatusRuntimeException incompatible = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> admin.updateStreamSchema(UpdateStreamSchemaRequest.newBuilder().setTenant(TENANT).setName("orders")
            .addColumns(amount.toBuilder().setType("STRING")).addColumns(currency).build()));
    assertThat(incompatible.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(incompatible.getStatus().getDescription()).contains("column 'amount' cannot change its type from BIGINT to STRING");

    ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("orders")
        .addEvents(order("a", "{\"amount\":7,\"currency\":\"USD\"}")).build());
    TransformServiceGrpc.newBlockingStub(SERVER.channel()).create(CreateTransformRequest.newBuilder().setTenant(TENANT)
        .setName("by_currency").setSql("SELECT currency, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY currency")
        .build());
    SERVER.clients().awaitLive("by_currency", 4);
    assertThat(SERVER.resp().sync().hgetall("by_currency:EUR")).containsEntry("orders", "3").containsEntry("total", "35");
    assertThat(SERVER.resp().sync().hgetall("by_currency:USD")).containsEntry("orders", "1").containsEntry("total", "7");
    assertThat(SERVER.resp().sync().get("by_currency:EUR")).contains("\"total\":35"); // typed BIGINT in SQL
  }
}
