package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.streamfold.e2e.GrpcClients.assertStatus;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The main job end to end on real data: real flights rows ingested over gRPC into a real Pulsar ledger,
 * a SQL transformation created over gRPC and run by Flink, every view row read through the
 * query-service with a real Redis client (lettuce) and compared with a plain group-by.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EndToEndIT {
  private static final String TENANT = Testkit.uniqueName("e2e");
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("server"), TENANT, Duration.ofMillis(500));
  private static final GrpcClients GRPC = SERVER.clients();

  /** Append over the bidirectional stream, 1,000 events a request; returns the message IDs. */
  private static List<String> appendStream(String stream, List<Flights.Flight> flights) throws Exception {
    List<String> ids = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<AppendRequest> requests = IngestServiceGrpc.newStub(SERVER.channel()).appendStream(new StreamObserver<>() {
      @Override
      public void onNext(AppendResponse response) {
        synchronized (ids) {
          ids.addAll(response.getMessageIdsList());
        }
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    });
    for (int from = 0, seq = 0; from < flights.size(); from += 1000, seq++) {
      AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream(stream).setRequestSeq(seq);
      flights.subList(from, Math.min(flights.size(), from + 1000)).forEach(f -> request.addEvents(GrpcClients.flight(f)));
      requests.onNext(request.build());
    }
    requests.onCompleted();
    done.get(2, TimeUnit.MINUTES);
    return ids;
  }

  private static void assertViewEqualsOracle(List<Flights.Flight> flights) {
    RedisCommands<String, String> redis = SERVER.resp().sync();
    Set<String> keys = new HashSet<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches("delays_by_origin:*").limit(100));
      keys.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    assertThat(keys).hasSize(oracle.size());
    for (Map.Entry<String, Flights.Delays> expected : oracle.entrySet()) {
      String key = "delays_by_origin:" + expected.getKey();
      assertThat(keys).contains(key);
      Map<String, String> row = redis.hgetall(key);
      assertThat(row).containsOnlyKeys("origin", "flights", "avg_delay", "delayed");
      assertThat(row.get("origin")).isEqualTo(expected.getKey());
      assertThat(Long.parseLong(row.get("flights"))).as(key).isEqualTo(expected.getValue().flights());
      assertThat(Long.parseLong(row.get("delayed"))).as(key).isEqualTo(expected.getValue().delayed());
      assertThat(Double.parseDouble(row.get("avg_delay"))).as(key).isCloseTo(expected.getValue().avgDelay(), within(1e-9));
    }
  }

  @Test
  void flightsLedgerToSqlViewToRedisProtocolReads() throws Exception {
    List<Flights.Flight> flights = Flights.load();
    GRPC.createFlights("flights");
    List<String> ids = appendStream("flights", flights.subList(0, 20_000));
    assertThat(ids).hasSize(20_000).doesNotHaveDuplicates();

    TransformServiceGrpc.newBlockingStub(SERVER.channel()).create(CreateTransformRequest.newBuilder()
        .setTenant(TENANT).setName("delays_by_origin").setSql(Flights.DELAYS_BY_ORIGIN_SQL).build());
    GRPC.awaitLive("delays_by_origin", 20_000);
    ViewStatus live = GRPC.status("delays_by_origin");
    assertThat(live.getBackfillTargetEvents()).isEqualTo(20_000);
    assertThat(live.getBackfillTargetMessageId()).isEqualTo(ids.get(ids.size() - 1));
    assertThat(live.getPositionList()).containsExactly(ids.get(ids.size() - 1));
    assertViewEqualsOracle(flights.subList(0, 20_000));

    List<String> appended = GRPC.appendFlights("flights", flights.subList(20_000, 21_000));
    assertThat(appended.size()).isEqualTo(1_000);
    GRPC.awaitLive("delays_by_origin", 21_000);
    assertThat(GRPC.status("delays_by_origin").getPositionList()).containsExactly(appended.get(999));
    assertViewEqualsOracle(flights);
  }

  @Test
  void badInputIsRejectedClearlyAndTheServerKeepsServing() {
    GRPC.createFlights("bad_input");
    var ingest = IngestServiceGrpc.newBlockingStub(SERVER.channel());
    Event good = GrpcClients.flight(Flights.load().get(0));

    assertStatus(() -> ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("bad_input")
        .addEvents(good).addEvents(good.toBuilder().clearKey()).build()),
        Status.Code.INVALID_ARGUMENT, "event 1: field 'key' is missing or empty");
    assertStatus(() -> ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("bad_input")
        .addEvents(good.toBuilder().setPayloadJson("[1,2,3]")).build()),
        Status.Code.INVALID_ARGUMENT, "event 0: field 'payload_json' must be a JSON object");
    assertStatus(() -> ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("no_such_stream")
        .addEvents(good).build()),
        Status.Code.NOT_FOUND, "stream 'no_such_stream' does not exist");
    var transforms = TransformServiceGrpc.newBlockingStub(SERVER.channel());
    assertStatus(() -> transforms.create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("broken")
        .setSql("SELECT origin COUNT(*) FROM bad_input GROUP BY origin").build()),
        Status.Code.INVALID_ARGUMENT, "invalid SQL");
    assertStatus(() -> transforms.create(CreateTransformRequest.newBuilder().setTenant(TENANT).setName("broken")
        .setSql("SELECT airline, COUNT(*) FROM bad_input GROUP BY airline").build()),
        Status.Code.INVALID_ARGUMENT, "Column 'airline' not found");

    // nothing of the rejected requests was stored, and the server keeps serving
    var streams = StreamAdminGrpc.newBlockingStub(SERVER.channel()).listStreams(ListStreamsRequest.newBuilder().setTenant(TENANT).build());
    assertThat(streams.getStreamsList()).filteredOn(s -> s.getName().equals("bad_input"))
        .singleElement().satisfies(s -> assertThat(s.getEventCount()).isZero());
    assertThat(ingest.append(AppendRequest.newBuilder().setTenant(TENANT).setStream("bad_input").addEvents(good).build())
        .getMessageIdsCount()).isEqualTo(1);
    assertThat(SERVER.resp().sync().ping()).isEqualTo("PONG");
    assertThatThrownBy(() -> transforms.get(GetTransformRequest.newBuilder().setTenant(TENANT).setName("broken").build()))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("NOT_FOUND");
  }
}
