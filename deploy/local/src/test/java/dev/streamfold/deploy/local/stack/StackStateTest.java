package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackStateTest {
  @TempDir
  Path dir;

  static StackState sample(Path dir) {
    Map<String, Integer> pulsarPorts = new LinkedHashMap<>();
    pulsarPorts.put("broker", 40001);
    pulsarPorts.put("web", 40002);
    pulsarPorts.put("bookie", 40003);
    Map<String, Integer> serverPorts = new LinkedHashMap<>();
    serverPorts.put("grpc", 40005);
    serverPorts.put("resp", 40006);
    serverPorts.put("metrics", 40008);
    return StackState.empty(dir)
        .withPulsar(new ProcessRecord("pulsar", 101, 1_700_000_000_000L, dir + "/pulsar/standalone.conf",
            dir + "/pulsar", dir + "/pulsar/pulsar.log", pulsarPorts))
        .withRedis(new ProcessRecord("redis", 102, 1_700_000_001_000L, "127.0.0.1:40004", dir + "/redis",
            dir + "/redis/redis.log", Map.of("redis", 40004)))
        .withServer(new ProcessRecord("server", 103, 1_700_000_002_000L, dir + "/server", dir + "/server",
            dir + "/server/server.log", serverPorts))
        .withS3(new ProcessRecord("s3", 104, 1_699_999_999_000L, dir + "/s3/s3proxy.properties", dir + "/s3",
            dir + "/s3/s3proxy.log", Map.of("s3", 40007)));
  }

  @Test
  void roundTripsThroughTheStateFile() {
    Path file = dir.resolve(StackState.FILE_NAME);
    StackState written = sample(dir).write(file, 1_700_000_003_000L);
    assertThat(written.updatedAtMs()).isEqualTo(1_700_000_003_000L);
    StackState read = StackState.read(file).orElseThrow();
    assertThat(read).isEqualTo(written);
    assertThat(read.pulsarServiceUrl()).isEqualTo("pulsar://127.0.0.1:40001");
    assertThat(read.pulsarAdminUrl()).isEqualTo("http://127.0.0.1:40002");
    assertThat(read.redisUri()).isEqualTo("redis://127.0.0.1:40004");
    assertThat(read.grpcPort()).isEqualTo(40005);
    assertThat(read.respPort()).isEqualTo(40006);
    assertThat(read.metricsPort()).isEqualTo(40008);
    assertThat(read.metricsUrl()).isEqualTo("http://127.0.0.1:40008/metrics");
    assertThat(read.s3Endpoint()).isEqualTo("http://127.0.0.1:40007");
    assertThat(List.copyOf(read.pulsar().ports().keySet())).containsExactly("broker", "web", "bookie");
    assertThat(read.pulsar().port("nope")).isZero();
  }

  @Test
  void stateFileIsPlainJsonAndToleratesNewFields() throws Exception {
    Path file = dir.resolve(StackState.FILE_NAME);
    sample(dir).write(file, 1L);
    String text = Files.readString(file);
    assertThat(text).contains("\"grpc\" : 40005").contains("\"formatVersion\" : 1").doesNotContain("grpcPort");
    Files.writeString(file, text.replaceFirst("\\{", "{ \"someday\" : true,"));
    assertThat(StackState.read(file).orElseThrow().redis().pid()).isEqualTo(102);
  }

  @Test
  void stateFileWrittenBeforeTieredStorageHasNoS3() throws Exception {
    Path file = dir.resolve(StackState.FILE_NAME);
    sample(dir).withS3(null).write(file, 1L);
    Files.writeString(file, Files.readString(file).replaceAll(",\\s*\"s3\" : null", ""));
    assertThat(Files.readString(file)).doesNotContain("\"s3\"");
    StackState read = StackState.read(file).orElseThrow();
    assertThat(read.s3()).isNull();
    assertThat(read.s3Endpoint()).isNull();
    assertThat(read.server().pid()).isEqualTo(103);
  }

  @Test
  void missingFileIsEmptyAndBrokenFileIsNamed() throws Exception {
    assertThat(StackState.read(dir.resolve("none.json"))).isEmpty();
    Path broken = Files.writeString(dir.resolve("broken.json"), "{ not json");
    assertThatThrownBy(() -> StackState.read(broken)).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("broken.json");
  }

  @Test
  void emptyStateHasNoPorts() {
    StackState empty = StackState.empty(dir);
    assertThat(empty.grpcPort()).isZero();
    assertThat(empty.metricsPort()).isZero();
    assertThat(empty.metricsUrl()).isNull();
    assertThat(empty.pulsarServiceUrl()).isNull();
  }

  @Test
  void launcherArgumentsRoundTrip() {
    StackOptions options = StackOptions.builder(dir).brokerPort(1).webPort(2).bookiePort(3).redisPort(4).grpcPort(5)
        .respPort(6).serverStartTimeout(Duration.ofSeconds(77)).detached(true).build();
    assertThat(options.s3Port()).isZero();
    assertThat(options.offloadDeletionLag()).isEqualTo(Duration.ofHours(4));
    StackOptions parsed = LocalStackLauncher.parse(LocalStackLauncher.arguments(options).toArray(String[]::new));
    assertThat(parsed).isEqualTo(options.withDetached(false));
    StackOptions tiered = options.withS3Port(7).withOffloadDeletionLag(Duration.ofMinutes(5));
    assertThat(LocalStackLauncher.parse(LocalStackLauncher.arguments(tiered).toArray(String[]::new)))
        .isEqualTo(tiered.withDetached(false));
    assertThatThrownBy(() -> options.withOffloadDeletionLag(Duration.ofMillis(-1))).hasMessageContaining("-0.001");
    assertThatThrownBy(() -> options.withS3Port(-5)).hasMessageContaining("-5");
    assertThatThrownBy(() -> LocalStackLauncher.parse(new String[] {"--grpc-port", "1"}))
        .hasMessageContaining("--data-dir");
    assertThatThrownBy(() -> StackOptions.builder(dir).brokerPort(70000).serverStartTimeout(Duration.ofSeconds(1)).build())
        .hasMessageContaining("70000");
  }

  @Test
  void statusShowsTheS3EndpointAndKeepsTheServerThird() {
    StackState state = sample(dir);
    StackStatus status = new StackStatus(dir, java.util.Optional.of(state), List.of(
        new StackStatus.ProcessStatus("pulsar", state.pulsar(), true),
        new StackStatus.ProcessStatus("redis", state.redis(), true),
        new StackStatus.ProcessStatus("server", state.server(), true),
        new StackStatus.ProcessStatus("s3", state.s3(), true)));
    assertThat(status.processes().get(2).name()).isEqualTo("server");
    assertThat(status.process("s3").record().port("s3")).isEqualTo(40007);
    assertThatThrownBy(() -> status.process("nope")).hasMessageContaining("nope");
    assertThat(status.render()).contains("s3      running  pid 104  ports s3 127.0.0.1:40007")
        .contains("S3 endpoint (offloaded ledger segments): http://127.0.0.1:40007 bucket streamfold-ledger")
        .contains(dir.resolve("s3/credentials").toString())
        .contains("ports grpc 127.0.0.1:40005, resp 127.0.0.1:40006, metrics 127.0.0.1:40008")
        .contains("metrics: http://127.0.0.1:40008/metrics");
  }

  @Test
  void stateFileWrittenBeforeMetricsHasNoMetricsEndpoint() {
    StackState state = sample(dir).withServer(new ProcessRecord("server", 103, 1L, dir + "/server", dir + "/server",
        dir + "/server/server.log", Map.of("grpc", 40005, "resp", 40006)));
    assertThat(state.metricsPort()).isZero();
    StackStatus status = new StackStatus(dir, java.util.Optional.of(state), List.of(
        new StackStatus.ProcessStatus("pulsar", state.pulsar(), true),
        new StackStatus.ProcessStatus("redis", state.redis(), true),
        new StackStatus.ProcessStatus("server", state.server(), true),
        new StackStatus.ProcessStatus("s3", state.s3(), true)));
    assertThat(status.render()).contains("gRPC API: 127.0.0.1:40005").doesNotContain("metrics:");
  }

  @Test
  void bookiePortIsReadFromBookKeepersCookie() throws Exception {
    Path bookie = Files.createDirectories(dir.resolve("bookkeeper/current"));
    assertThat(LocalStack.recordedBookiePort(dir.resolve("nothing"))).isZero();
    Files.writeString(bookie.resolve("VERSION"), "5\nbookieHost: \"127.0.0.1:49991\"\njournalDir: \"/x\"\n");
    assertThat(LocalStack.recordedBookiePort(dir.resolve("bookkeeper"))).isEqualTo(49991);
  }
}
