package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import dev.streamfold.deploy.process.RedisServerProcess;
import dev.streamfold.testkit.Testkit;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The local stack with real processes: two stacks side by side on free ports, {@code up} idempotent,
 * {@code down} leaves no process behind (descendants included), a restart keeps the ports; the broker
 * offloads to the stack's own S3 endpoint with credentials made up once and passed in its environment.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LocalStackIT {
  private static final List<LocalStack> STARTED = new ArrayList<>();

  @AfterAll
  static void stopEverything() {
    STARTED.forEach(LocalStack::down);
  }

  private static LocalStack stack(String name) {
    LocalStack stack = new LocalStack(StackOptions.builder(Testkit.workDir().resolve(name)).build(), System.out);
    STARTED.add(stack);
    return stack;
  }

  private static List<ProcessHandle> processesOf(StackState state) {
    List<ProcessHandle> handles = new ArrayList<>();
    for (ProcessRecord r : List.of(state.pulsar(), state.redis(), state.server(), state.s3())) {
      ProcessHandle h = ProcessHandle.of(r.pid()).orElseThrow();
      handles.add(h);
      handles.addAll(h.descendants().toList());
    }
    return handles;
  }

  private static Set<Integer> ports(StackState state) {
    Set<Integer> ports = new HashSet<>();
    for (ProcessRecord r : List.of(state.pulsar(), state.redis(), state.server(), state.s3())) {
      ports.addAll(r.ports().values());
    }
    return ports;
  }

  private static void assertServes(StackState state, String adminToken) throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", state.grpcPort()).usePlaintext().build();
    try {
      io.grpc.Metadata headers = new io.grpc.Metadata();
      headers.put(dev.streamfold.api.auth.AuthInterceptor.AUTHORIZATION,
          dev.streamfold.api.auth.AuthInterceptor.bearer(adminToken));
      assertThat(StreamAdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
          .withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers))
          .listStreams(ListStreamsRequest.newBuilder().setTenant("demo").build())).isNotNull();
      assertThatThrownBy(() -> StreamAdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
          .listStreams(ListStreamsRequest.newBuilder().setTenant("demo").build())).as("no token")
          .hasMessageContaining("UNAUTHENTICATED");
    } finally {
      channel.shutdownNow();
    }
    assertThat(RedisServerProcess.ping(state.respPort())).as("query-service answers PING").isTrue();
    assertThat(RedisServerProcess.ping(state.redis().port(ProcessRecord.PORT_REDIS))).isTrue();
    HttpResponse<Void> s3 = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(state.s3Endpoint() + "/"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
    assertThat(s3.statusCode()).as("an unsigned S3 request is refused").isEqualTo(403);
    assertThat(state.metricsPort()).as("metrics on a port of its own").isPositive()
        .isNotIn(state.grpcPort(), state.respPort());
    HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        state.metricsUrl())).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("jvm_memory_used_bytes");
  }

  /** The broker offloads to the stack's S3 endpoint; its credentials are in its environment only. */
  private static void assertOffloadsToItsS3(StackState state) throws Exception {
    Path credentialsFile = Path.of(state.s3().dataDir()).resolve(S3Credentials.FILE_NAME);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(credentialsFile))).isEqualTo("rw-------");
    S3Credentials credentials = S3Credentials.loadOrCreate(credentialsFile);
    Properties conf = new Properties();
    try (var in = Files.newBufferedReader(Path.of(state.pulsar().dataDir()).resolve("standalone.conf"))) {
      conf.load(in);
    }
    assertThat(conf).containsEntry("managedLedgerOffloadDriver", "S3")
        .containsEntry("managedLedgerOffloadServiceEndpoint", state.s3Endpoint())
        .containsEntry("managedLedgerOffloadBucket", LocalStack.S3_BUCKET)
        .containsEntry("managedLedgerOffloadDeletionLagMs", Long.toString(Duration.ofHours(4).toMillis()))
        .containsEntry("offloadersDirectory", Path.of(state.pulsar().dataDir()).resolve("offloaders").toString())
        .containsEntry("managedLedgerMaxEntriesPerLedger", Integer.toString(LocalStack.LOCAL_MAX_ENTRIES_PER_LEDGER));
    assertThat(Files.readString(Path.of(state.pulsar().dataDir()).resolve("standalone.conf")))
        .doesNotContain(credentials.secretAccessKey());
    assertThat(ProcessCheck.commandLine(ProcessHandle.of(state.pulsar().pid()).orElseThrow()).orElseThrow())
        .doesNotContain(credentials.secretAccessKey());
    String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(state.pulsar().pid()), "environ")),
        StandardCharsets.UTF_8);
    assertThat(environ.split("\u0000")).contains("ACCESS_KEY_ID=" + credentials.accessKeyId(),
        "ACCESS_KEY_SECRET=" + credentials.secretAccessKey());
    assertThat(Path.of(state.pulsar().dataDir()).resolve("offloaders/tiered-storage-jcloud-4.0.8.nar")).isRegularFile();
    assertThat(Path.of(state.s3().dataDir()).resolve("buckets").resolve(LocalStack.S3_BUCKET)).isDirectory();
  }

  @Test
  void twoStacksSideBySideUpIsIdempotentDownLeavesNothingRestartKeepsPortsAndS3Credentials() throws Exception {
    LocalStack a = stack("stack-a");
    LocalStack b = stack("stack-b");

    StackState first = a.up();
    assertThat(a.status().allRunning()).isTrue();
    assertThat(StackState.read(a.stateFile())).contains(first);
    String adminTokenOfA = a.adminToken();
    assertThat(java.nio.file.Files.getPosixFilePermissions(a.dataDir().resolve("server/admin-token")))
        .as("the admin token file is the owner's only")
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    assertServes(first, adminTokenOfA);
    assertOffloadsToItsS3(first);
    assertThat(a.status().render()).contains("s3      running").contains("S3 endpoint (offloaded ledger segments): "
        + first.s3Endpoint()).contains("metrics: " + first.metricsUrl());
    assertThat(a.up().server().pid()).as("up again changes nothing").isEqualTo(first.server().pid());

    StackState other = b.up();
    assertThat(b.adminToken()).as("each stack has its own admin token").isNotEqualTo(adminTokenOfA);
    assertServes(other, b.adminToken());
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
    assertThat(again.metricsPort()).isEqualTo(first.metricsPort());
    assertThat(again.redisUri()).isEqualTo(first.redisUri());
    assertThat(again.pulsarServiceUrl()).isEqualTo(first.pulsarServiceUrl());
    assertThat(again.s3Endpoint()).isEqualTo(first.s3Endpoint());
    assertThat(a.adminToken()).as("the admin token survives a restart").isEqualTo(adminTokenOfA);
    assertServes(again, adminTokenOfA);
    assertOffloadsToItsS3(again);
    assertThat(S3Credentials.loadOrCreate(Path.of(again.s3().dataDir()).resolve(S3Credentials.FILE_NAME)))
        .as("credentials are made up once per data dir")
        .isEqualTo(S3Credentials.loadOrCreate(Path.of(first.s3().dataDir()).resolve(S3Credentials.FILE_NAME)));

    List<ProcessHandle> all = new ArrayList<>(processesOf(again));
    all.addAll(processesOf(other));
    assertThat(a.down()).isTrue();
    assertThat(b.down()).isTrue();
    for (ProcessHandle h : all) {
      assertThat(ProcessCheck.isGone(h)).as("process %d is gone", h.pid()).isTrue();
    }
  }
}
