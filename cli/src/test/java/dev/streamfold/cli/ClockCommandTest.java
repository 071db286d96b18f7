package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.ClockTick;
import dev.streamfold.api.v1.ListTicksRequest;
import dev.streamfold.api.v1.ListTicksResponse;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TickPosition;
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

/** {@code streamfold ledger clock} against a scripted gRPC server on loopback: what it asks and what it prints. */
class ClockCommandTest {
  private static final ClockTick SEVEN = ClockTick.newBuilder().setNumber(7).setTimeMs(1_764_900_000_000L)
      .addStreams(TickPosition.newBuilder().setStream("airports").addMessageIds("10:3:-1:-1"))
      .addStreams(TickPosition.newBuilder().setStream("flights").addMessageIds("11:40:0:999").addMessageIds("12:38:1:999"))
      .build();

  private final List<ListTicksRequest> received = new CopyOnWriteArrayList<>();
  private volatile List<ClockTick> ticks = List.of(SEVEN);
  private Server server;
  private CliRunner cli;

  private final class Admin extends StreamAdminGrpc.StreamAdminImplBase {
    @Override
    public void listTicks(ListTicksRequest request, StreamObserver<ListTicksResponse> response) {
      received.add(request);
      if (request.getTenant().equals("down")) {
        response.onError(Status.UNAVAILABLE.withDescription("cannot read the clock of tenant 'down' "
            + "(persistent://down/system/clock)").asRuntimeException());
        return;
      }
      response.onNext(ListTicksResponse.newBuilder().addAllTicks(ticks).build());
      response.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new Admin()).build().start();
    cli = new CliRunner("--server", "127.0.0.1:" + server.getPort());
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @Test
  void printsEachTickWithItsStreamsPositions() {
    CliRun r = cli.run("ledger", "clock", "--after", "6", "--limit", "5");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out()).contains("TICK", "TIME (UTC)")
        .contains("7        2025-12-05T02:00:00Z     airports 10:3:-1:-1; flights 11:40:0:999,12:38:1:999");
    assertThat(received).singleElement().satisfies(q -> {
      assertThat(q.getAfterTick()).isEqualTo(6);
      assertThat(q.getMaxTicks()).isEqualTo(5);
      assertThat(q.getLast()).isFalse();
    });
  }

  @Test
  void printsJsonLinesInTheStoredForm() {
    CliRun r = cli.run("ledger", "clock", "--last", "--json");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out().strip()).isEqualTo("{\"tick\":7,\"time_ms\":1764900000000,\"streams\":"
        + "{\"airports\":\"10:3:-1:-1\",\"flights\":\"11:40:0:999,12:38:1:999\"}}");
    assertThat(received).singleElement().satisfies(q -> assertThat(q.getLast()).isTrue());
  }

  @Test
  void saysWhenThereIsNoTickYet() {
    ticks = List.of();
    assertThat(cli.run("ledger", "clock").out()).contains("No tick yet: the clock of tenant demo records its first tick");
    assertThat(cli.run("ledger", "clock", "--after", "9").out()).contains("No tick after tick 9.");
  }

  @Test
  void refusesBadBoundsBeforeAskingAndReportsAnUnreadableClock() {
    CliRun limit = cli.run("ledger", "clock", "--limit", "0");
    assertThat(limit.exitCode()).isNotEqualTo(0);
    assertThat(limit.err()).contains("--limit must be 1 to 10000, got 0");
    CliRun after = cli.run("ledger", "clock", "--after", "-1");
    assertThat(after.err()).contains("--after must be >= 0, got -1");
    assertThat(received).isEmpty();
    CliRun down = cli.run("ledger", "clock", "--tenant", "down");
    assertThat(down.exitCode()).isNotEqualTo(0);
    assertThat(down.err()).contains("cannot read the clock of tenant 'down'");
  }
}
