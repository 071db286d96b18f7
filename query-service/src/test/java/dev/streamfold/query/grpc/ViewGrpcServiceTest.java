package dev.streamfold.query.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.GetRowRequest;
import dev.streamfold.api.v1.GetRowResponse;
import dev.streamfold.api.v1.ViewServiceGrpc;
import dev.streamfold.core.PositionVector;
import dev.streamfold.query.ViewSources;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.VirtualState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real service on an in-process server, read with a real stub, over an in-memory view and virtual state. */
class ViewGrpcServiceTest {
  private static final ViewName STATE = new ViewName("acme", "totals@5:10:-1:-1");

  /** View "totals" (v2, LIVE, row ATL) and its complete virtual state {@link #STATE} (row ATL with 1 flight). */
  private static final class Views implements ViewReader {
    volatile PositionVector position = PositionVector.parse("5:20:-1:3");
    volatile long flights = 7;
    volatile boolean rolledBack;

    @Override
    public Optional<Map<String, String>> row(ViewName name, String rowKey) {
      if (!rowKey.equals("ATL")) {
        return Optional.empty();
      }
      boolean state = name.equals(STATE) || rolledBack && name.view().equals("totals");
      if (state) {
        return Optional.of(Map.of("origin", "ATL", "flights", "1"));
      }
      return name.view().equals("totals") ? Optional.of(Map.of("origin", "ATL", "flights", Long.toString(flights)))
          : Optional.empty();
    }

    @Override
    public Optional<ViewSchema> schema(ViewName name) {
      return Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name) {
      return rolledBack && name.view().equals("totals") ? metadata(STATE, 1) : metadata(name, name.equals(STATE) ? 1 : 2);
    }

    @Override
    public Optional<ViewName> rollbackTarget(ViewName name) {
      return rolledBack && name.view().equals("totals") ? Optional.of(STATE) : Optional.empty();
    }

    @Override
    public Optional<VirtualState> virtualState(ViewName name) {
      return name.equals(STATE) ? Optional.of(new VirtualState(STATE, "totals", 2, "", "", "to 5:10:-1:-1", 1))
          : Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name, int version) {
      if (name.equals(STATE)) {
        return version == 1 ? Optional.of(new ViewMetadata(1, ViewPhase.COMPLETE, 1, 1, PositionVector.EMPTY,
            PositionVector.parse("5:10:-1:-1"), 1, 1, ""))
            : Optional.empty();
      }
      return name.view().equals("totals") && version == 2
          ? Optional.of(new ViewMetadata(2, ViewPhase.LIVE, flights, 7, PositionVector.EMPTY, position, 1, 1, ""))
          : Optional.empty();
    }

    @Override
    public List<String> views(String tenant) {
      return List.of("totals", STATE.view());
    }

    @Override
    public ScanPage scan(String tenant, String cursor, long count) {
      return new ScanPage("0", List.of());
    }
  }

  private final Views views = new Views();
  private ViewGrpcService service;
  private Server server;
  private ManagedChannel channel;
  private ViewServiceGrpc.ViewServiceBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    service = new ViewGrpcService(views, ViewSources.UNKNOWN, Clock.systemUTC(), Duration.ofMillis(5));
    server = InProcessServerBuilder.forName(name).addService(service).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    stub = ViewServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    service.close();
  }

  private static GetRowRequest.Builder get(String view, String key) {
    return GetRowRequest.newBuilder().setTenant("acme").setView(view).setKey(key);
  }

  @Test
  void readsARowWithThePositionItReflects() {
    GetRowResponse r = stub.getRow(get("totals", "ATL").build());
    assertThat(r.getFound()).isTrue();
    assertThat(r.getRowMap()).containsEntry("flights", "7").containsEntry("origin", "ATL");
    assertThat(r.getPositionList()).containsExactly("5:20:-1:3");
    assertThat(r.getReadFrom()).isEqualTo("totals");
    assertThat(r.getVersion()).isEqualTo(2);
    assertThat(r.getPhase()).isEqualTo("LIVE");
    assertThat(r.getRolledBackTo()).isEmpty();

    GetRowResponse missing = stub.getRow(get("totals", "SFO").build());
    assertThat(missing.getFound()).isFalse();
    assertThat(missing.getRowMap()).isEmpty();

    GetRowResponse state = stub.getRow(get("totals@5:10:-1:-1", "ATL").build());
    assertThat(state.getRowMap()).containsEntry("flights", "1");
    assertThat(state.getPositionList()).containsExactly("5:10:-1:-1");
    assertThat(state.getPhase()).isEqualTo("COMPLETE");
  }

  @Test
  void aRolledBackViewIsReadFromItsStateAndSaysSo() {
    views.rolledBack = true;
    GetRowResponse r = stub.getRow(get("totals", "ATL").build());
    assertThat(r.getRowMap()).containsEntry("flights", "1");
    assertThat(r.getReadFrom()).isEqualTo("totals@5:10:-1:-1");
    assertThat(r.getRolledBackTo()).isEqualTo("totals@5:10:-1:-1");
    assertThat(r.getPositionList()).containsExactly("5:10:-1:-1");
    assertThat(r.getVersion()).as("the version the state was replayed with").isEqualTo(2);
    assertStatus(() -> stub.getRow(get("totals", "ATL").setWaitForMessageId("5:20:-1:3").setWaitTimeoutMs(1000).build()),
        Status.Code.FAILED_PRECONDITION, "is rolled back to virtual state 'totals@5:10:-1:-1'");
  }

  @Test
  void waitsUntilTheViewAppliedTheMessageId() throws Exception {
    CompletableFuture<GetRowResponse> read = CompletableFuture.supplyAsync(() -> stub.getRow(get("totals", "ATL")
        .setWaitForMessageId("5:21:-1:-1").setWaitTimeoutMs(10_000).build()));
    // the read keeps waiting while nothing has reached 5:21
    Awaitility.await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !read.isDone());
    views.flights = 8;
    views.position = PositionVector.parse("5:21:-1:-1");
    GetRowResponse r = read.get(10, TimeUnit.SECONDS);
    assertThat(r.getRowMap()).containsEntry("flights", "8");
    assertThat(r.getPositionList()).containsExactly("5:21:-1:-1");
  }

  @Test
  void aWaitTimesOutWithDeadlineExceeded() {
    assertStatus(() -> stub.getRow(get("totals", "ATL").setWaitForMessageId("6:0:-1:-1").setWaitTimeoutMs(30).build()),
        Status.Code.DEADLINE_EXCEEDED, "view 'totals' did not apply message ID 6:0:-1:-1 within 30 ms (its position: 5:20:-1:3)");
    assertStatus(() -> stub.getRow(get("totals@5:10:-1:-1", "ATL").setWaitForMessageId("6:0:-1:-1").setWaitTimeoutMs(30).build()),
        Status.Code.FAILED_PRECONDITION, "is COMPLETE at position 5:10:-1:-1");
  }

  @Test
  void badInputAndUnknownViewsMapToStatusCodes() {
    assertStatus(() -> stub.getRow(get("nope", "ATL").build()), Status.Code.NOT_FOUND, "no such view or virtual state 'nope'");
    assertStatus(() -> stub.getRow(get("no:pe", "ATL").build()), Status.Code.INVALID_ARGUMENT, "field 'view': invalid view name");
    assertStatus(() -> stub.getRow(get("totals", "ATL").setTenant("").build()), Status.Code.INVALID_ARGUMENT, "field 'tenant'");
    assertStatus(() -> stub.getRow(get("totals", "ATL").setWaitForMessageId("1:2").build()),
        Status.Code.INVALID_ARGUMENT, "field 'wait_for_message_id': invalid message ID '1:2'");
    assertStatus(() -> stub.getRow(get("totals", "ATL").setWaitForMessageId("1:2:-1:0").setWaitTimeoutMs(60_001).build()),
        Status.Code.INVALID_ARGUMENT, "field 'wait_timeout_ms' must be 0..60000 ms, got 60001");
  }

  private static void assertStatus(Runnable call, Status.Code code, String messagePart) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(messagePart);
    });
  }
}
