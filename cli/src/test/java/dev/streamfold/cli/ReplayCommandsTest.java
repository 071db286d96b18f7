package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.DropVirtualStateResponse;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.RollbackRequest;
import dev.streamfold.api.v1.RollbackResponse;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.UpdateTransformRequest;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.api.v1.ViewUpdate;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import dev.streamfold.cli.CliRunner.CliRun;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The replay, rollback, view and update commands against a scripted gRPC server on loopback: what they send,
 * what they print, and their one-line errors.
 */
class ReplayCommandsTest {
  private static final VirtualState COMPLETE = VirtualState.newBuilder().setTenant("demo").setName("delays@1:2:-1:3")
      .setSourceView("delays").setTransformVersion(1).setStop("to 1:2:-1:3").setFullHistory(true).setPhase("COMPLETE")
      .setEventsApplied(4).setTargetEvents(4).addPosition("1:2:-1:3").setRows(2).build();

  private final List<Object> received = new CopyOnWriteArrayList<>();
  /** What GetVirtualState answers: a state, or NOT_FOUND when null. */
  private volatile VirtualState existing;
  /** When set, Rollback fails with FAILED_PRECONDITION and this description. */
  private volatile String rollbackRefusal;
  /** The update's phase and error that Status reports. */
  private volatile String updateError = "";
  /** The version served before an update: 0 when the first version failed before it was served. */
  private volatile int servedBefore = 1;
  /** When set, the update reports this error while BACKFILLING (a restart in progress) before it is served. */
  private volatile String restartError = "";
  private Server server;
  private CliRunner cli;
  private final Transforms transforms = new Transforms();

  private final class Replays extends ReplayServiceGrpc.ReplayServiceImplBase {
    @Override
    public void replay(ReplayRequest request, StreamObserver<ReplayProgress> response) {
      received.add(request);
      if (request.getTo().equals("9:9:-1:-1")) {
        response.onError(Status.INVALID_ARGUMENT.withDescription("message ID 9:9:-1:-1 is not in stream demo/flights")
            .asRuntimeException());
        return;
      }
      response.onNext(ReplayProgress.newBuilder().setState(COMPLETE.toBuilder().setPhase("BACKFILLING")
          .setEventsApplied(2).clearPosition()).build());
      response.onNext(ReplayProgress.newBuilder().setState(COMPLETE).setElapsedMs(1_500).build());
      response.onCompleted();
    }

    @Override
    public void getVirtualState(VirtualStateRequest request, StreamObserver<VirtualState> response) {
      received.add(request);
      if (existing == null) {
        response.onError(Status.NOT_FOUND.withDescription("virtual state '" + request.getName() + "' does not exist")
            .asRuntimeException());
      } else {
        response.onNext(existing);
        response.onCompleted();
      }
    }

    @Override
    public void rollback(RollbackRequest request, StreamObserver<RollbackResponse> response) {
      received.add(request);
      if (rollbackRefusal != null) {
        response.onError(Status.FAILED_PRECONDITION.withDescription(rollbackRefusal).asRuntimeException());
        return;
      }
      response.onNext(RollbackResponse.newBuilder().setState(COMPLETE).build());
      response.onCompleted();
    }

    @Override
    public void dropVirtualState(VirtualStateRequest request, StreamObserver<DropVirtualStateResponse> response) {
      received.add(request);
      response.onError(Status.NOT_FOUND.withDescription("virtual state '" + request.getName() + "' does not exist")
          .asRuntimeException());
    }
  }

  private final class Transforms extends TransformServiceGrpc.TransformServiceImplBase {
    private int statusCalls;

    @Override
    public void get(GetTransformRequest request, StreamObserver<Transform> response) {
      response.onNext(Transform.newBuilder().setName(request.getName()).build());
      response.onCompleted();
    }

    @Override
    public void update(UpdateTransformRequest request, StreamObserver<Transform> response) {
      received.add(request);
      response.onNext(Transform.newBuilder().setTenant("demo").setName(request.getName()).setVersion(2)
          .addKeyColumns("origin").addColumns("origin").addColumns("n").build());
      response.onCompleted();
    }

    @Override
    public synchronized void status(GetTransformRequest request, StreamObserver<ViewStatus> response) {
      statusCalls++;
      ViewStatus.Builder s = ViewStatus.newBuilder().setTenant("demo").setView(request.getName()).setPhase("LIVE")
          .setVersion(1).setServedVersion(servedBefore).setEventsApplied(10).setBackfillTargetEvents(10);
      if (updateError.isEmpty() && statusCalls >= 3) {
        s.setVersion(2).setServedVersion(2); // the update was swapped in
      } else if (statusCalls >= 2) {
        s.setUpdate(ViewUpdate.newBuilder().setVersion(2).setPhase(updateError.isEmpty() ? "BACKFILLING" : "FAILED")
            .setEventsApplied(5).setBackfillTargetEvents(10).setError(updateError.isEmpty() ? restartError : updateError));
      }
      response.onNext(s.build());
      response.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new Replays()).addService(transforms).build().start();
    cli = new CliRunner("--server", "127.0.0.1:" + server.getPort());
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @Test
  void replayFollowsTheProgressAndEndsWithOneLine() {
    CliRun r = cli.run("replay", "delays", "--to", "1:2:-1:3");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out()).startsWith("Virtual state delays@1:2:-1:3 COMPLETE at position 1:2:-1:3: 4 events applied, 2 rows, ")
        .contains("(read rows as delays@1:2:-1:3:<key>)");
    assertThat(received).singleElement().isInstanceOfSatisfying(ReplayRequest.class, q -> {
      assertThat(q.getView()).isEqualTo("delays");
      assertThat(q.getTo()).isEqualTo("1:2:-1:3");
      assertThat(q.getBefore()).isFalse();
    });
  }

  @Test
  void replayErrorsAreOneLineWithTheStatusCode() {
    CliRun r = cli.run("replay", "delays", "--before", "9:9:-1:-1");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: INVALID_ARGUMENT: message ID 9:9:-1:-1 is not in stream demo/flights");
  }

  @Test
  void rollbackToAMessageIdReplaysWhenNoStateExistsAndReusesAnExistingOne() {
    CliRun r = cli.run("rollback", "delays", "--to", "1:2:-1:3");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(received).hasSize(3);
    assertThat(received.get(0)).isInstanceOf(VirtualStateRequest.class);
    assertThat(received.get(1)).isInstanceOf(ReplayRequest.class);
    assertThat(received.get(2)).isInstanceOfSatisfying(RollbackRequest.class, q -> assertThat(q.getState())
        .isEqualTo("delays@1:2:-1:3"));
    assertThat(r.out()).contains("Virtual state delays@1:2:-1:3 COMPLETE")
        .contains("View delays rolled back to delays@1:2:-1:3: reads return its state at position 1:2:-1:3 (4 events, 2 rows).")
        .contains("keeps its live state current underneath");

    received.clear();
    existing = COMPLETE;
    r = cli.run("rollback", "delays", "--to", "1:2:-1:3");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(received).hasSize(2).noneMatch(q -> q instanceof ReplayRequest);
    assertThat(r.out()).startsWith("Reused virtual state delays@1:2:-1:3.");

    // an existing state the server refuses (replayed with earlier SQL): no "reused", and how to get past it
    received.clear();
    rollbackRefusal = "virtual state 'delays@1:2:-1:3' was replayed with another transformation (version 1: other SQL or Java fold)";
    try {
      r = cli.run("rollback", "delays", "--to", "1:2:-1:3");
    } finally {
      rollbackRefusal = null;
    }
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).doesNotContain("Reused");
    assertThat(r.errors()).contains("replayed with another transformation").contains("`streamfold view drop delays@1:2:-1:3`")
        .contains("--as NAME");
  }

  @Test
  void dropOfAViewPointsAtTransformDelete() {
    CliRun r = cli.run("view", "drop", "delays");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).startsWith("error: 'delays' is a view, not a virtual state: remove it with `streamfold transform delete delays`");
  }

  @Test
  void transformUpdateWaitsUntilServedOrReportsTheFailure() {
    CliRun r = cli.run("transform", "update", "delays", "--sql", "SELECT origin, COUNT(*) AS n FROM f GROUP BY origin");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(r.out()).contains("Started version 2 of demo/delays (key origin, columns origin,n) beside the served version 1")
        .contains("delays now serves version 2");

    // a restart in progress (error set, phase not FAILED) is waited out, not reported as a failure
    restartError = "restart 1 of 5 after: boom";
    transforms.statusCalls = 0;
    CliRun restarted = cli.run("transform", "update", "delays", "--sql", "SELECT origin, COUNT(*) AS n FROM f GROUP BY origin");
    assertThat(restarted.exitCode()).as(restarted.errors()).isEqualTo(0);
    assertThat(restarted.out()).contains("delays now serves version 2");
    restartError = "";

    updateError = "job failed: boom";
    transforms.statusCalls = 0;
    CliRun failed = cli.run("transform", "update", "delays2", "--sql", "SELECT 1");
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.errors()).startsWith("error: the update of demo/delays2 to version 2 FAILED: job failed: boom; version 1"
        + " is still served, untouched");

    // the first version failed before it was served: no "version 0 is still served"
    servedBefore = 0;
    transforms.statusCalls = 0;
    CliRun neverServed = cli.run("transform", "update", "delays3", "--sql", "SELECT 1");
    assertThat(neverServed.out()).contains("(no version is served yet); it is served once LIVE");
    assertThat(neverServed.errors()).startsWith("error: the update of demo/delays3 to version 2 FAILED: job failed: boom;"
        + " no version of it is served (none finished its first backfill)");
    servedBefore = 1;
  }

  @Test
  void aReplayOfAViewOverSeveralStreamsEndsAtItsTick() {
    dev.streamfold.api.v1.VirtualState state = dev.streamfold.api.v1.VirtualState.newBuilder().setName("at_17")
        .setPhase("COMPLETE").setClockPosition("17 airports=10:3:-1:-1 flights=11:40:0:-1").setEventsApplied(5_000)
        .setRows(12).setFullHistory(true).build();
    assertThat(ReplayCommand.describeDone(state, java.time.Duration.ofMillis(1_500))).isEqualTo("Virtual state at_17"
        + " COMPLETE at position tick 17 airports=10:3:-1:-1 flights=11:40:0:-1: 5,000 events applied, 12 rows, 1.5 s"
        + " (read rows as at_17:<key>)");
  }
}
