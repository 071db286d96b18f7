package dev.streamfold.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamfoldServerMainTest {

  @Test
  void environmentSetsFlagsAndTheCommandLineWins() {
    Map<String, String> flags = StreamfoldServerMain.resolveFlags(
        new String[] {"--redis-uri", "redis://cli:6379"},
        Map.of("STREAMFOLD_REDIS_URI", "redis://env:6379", "STREAMFOLD_DATA_DIR", "/data",
            "STREAMFOLD_CHECKPOINT_INTERVAL_MS", "2000", "STREAMFOLD_DEBUG", "1", "PATH", "/bin"));

    assertThat(flags).containsExactlyInAnyOrderEntriesOf(Map.of(
        "redis-uri", "redis://cli:6379", "data-dir", "/data", "checkpoint-interval-ms", "2000"));
  }

  @Test
  void metricsPortIsAFlagAndAnEnvironmentVariable() {
    assertThat(StreamfoldServerMain.resolveFlags(new String[] {}, Map.of("STREAMFOLD_METRICS_PORT", "9464")))
        .containsEntry("metrics-port", "9464");
    assertThat(StreamfoldServerMain.resolveFlags(new String[] {"--metrics-port", "0"}, Map.of()))
        .containsEntry("metrics-port", "0");
  }

  @Test
  void unknownFlagIsRefusedWithItsName() {
    assertThatThrownBy(() -> StreamfoldServerMain.resolveFlags(new String[] {"--redis-url", "redis://x"}, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown flag --redis-url")
        .hasMessageContaining("--redis-uri");
  }

  @Test
  void flagWithoutValueIsRefused() {
    assertThatThrownBy(() -> StreamfoldServerMain.resolveFlags(new String[] {"--data-dir"}, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--data-dir");
  }

  @Test
  void envNameIsUpperSnakeCase() {
    assertThat(StreamfoldServerMain.envName("checkpoint-interval-ms")).isEqualTo("STREAMFOLD_CHECKPOINT_INTERVAL_MS");
  }
}
