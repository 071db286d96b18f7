package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.process.RedisServerProcess;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The local stack with real processes: two stacks side by side on free ports, {@code up} idempotent,
 * {@code down} leaves no process behind (descendants included), a restart keeps the ports.
 */
class LocalStackIT {
  private static final List<LocalStack> STARTED = new ArrayList<>();

  @AfterAll
  static void stopEverything() {
    STARTED.forEach(LocalStack::down);
  }

  private static LocalStack stack(String name) {
    LocalStack stack = new LocalStack(StackOptions.of(Testkit.workDir().resolve(name)), System.out);
    STARTED.add(stack);
    return stack;
  }

  private static List<ProcessHandle> processesOf(StackState state) {
    List<ProcessHandle> handles = new ArrayList<>();
    for (ProcessRecord r : List.of(state.pulsar(), state.redis(), state.server())) {
      ProcessHandle h = ProcessHandle.of(r.pid()).orElseThrow();
      handles.add(h);
      handles.addAll(h.descendants().toList());
    }
    return handles;
  }

  private static Set<Integer> ports(StackState state) {
    Set<Integer> ports = new HashSet<>();
    for (ProcessRecord r : List.of(state.pulsar(), state.redis(), state.server())) {
      ports.addAll(r.ports().values());
    }
    return ports;
  }

  private static void assertServes(StackState state) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", state.grpcPort()).usePlaintext().build();
    try {
      assertThat(StreamAdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
          .listStreams(ListStreamsRequest.newBuilder().setTenant("demo").build())).isNotNull();
    } finally {
      channel.shutdownNow();
    }
    assertThat(RedisServerProcess.ping(state.respPort())).as("query-service answers PING").isTrue();
    assertThat(RedisServerProcess.ping(state.redis().port(ProcessRecord.PORT_REDIS))).isTrue();
  }

  @Test
  void twoStacksSideBySideUpIsIdempotentDownLeavesNothingRestartKeepsPorts() throws Exception {
    LocalStack a = stack("stack-a");
    LocalStack b = stack("stack-b");

    StackState first = a.up();
    assertThat(a.status().allRunning()).isTrue();
    assertThat(StackState.read(a.stateFile())).contains(first);
    assertServes(first);
    assertThat(a.up().server().pid()).as("up again changes nothing").isEqualTo(first.server().pid());

    StackState other = b.up();
    assertServes(other);
    assertThat(ports(other)).doesNotContainAnyElementsOf(ports(first));
    assertThat(a.status().allRunning()).isTrue();

    List<ProcessHandle> processesOfA = processesOf(first);
    assertThat(a.down()).isTrue();
    for (ProcessHandle h : processesOfA) {
      assertThat(ProcessCheck.isGone(h)).as("process %d of stack a is gone", h.pid()).isTrue();
    }
    assertThat(a.status().anyRunning()).isFalse();
    assertThat(a.status().render()).contains("Local stack: stopped");
    assertThat(a.down()).as("down again changes nothing").isFalse();
    assertThat(b.status().allRunning()).as("stack b is not affected").isTrue();
    assertThat(Files.exists(a.dataDir().resolve("server/ready.json"))).isFalse();

    StackState again = a.up();
    assertThat(again.grpcPort()).isEqualTo(first.grpcPort());
    assertThat(again.respPort()).isEqualTo(first.respPort());
    assertThat(again.redisUri()).isEqualTo(first.redisUri());
    assertThat(again.pulsarServiceUrl()).isEqualTo(first.pulsarServiceUrl());
    assertServes(again);

    List<ProcessHandle> all = new ArrayList<>(processesOf(again));
    all.addAll(processesOf(other));
    assertThat(a.down()).isTrue();
    assertThat(b.down()).isTrue();
    for (ProcessHandle h : all) {
      assertThat(ProcessCheck.isGone(h)).as("process %d is gone", h.pid()).isTrue();
    }
  }
}
