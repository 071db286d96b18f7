package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransformOptionsTest {
  private static final String REDIS = "redis://127.0.0.1:6379";
  private static final Path DATA = Path.of("/tmp/streamfold-options-test");

  @Test
  void theBuilderDefaultsAreTheDefaultConstants() {
    TransformOptions options = TransformOptions.builder(REDIS, DATA).build();
    assertThat(options.redisUri()).isEqualTo(REDIS);
    assertThat(options.dataDir()).isEqualTo(DATA);
    assertThat(options.checkpointInterval()).isEqualTo(TransformOptions.DEFAULT_CHECKPOINT_INTERVAL);
    assertThat(options.parallelism()).isEqualTo(TransformOptions.DEFAULT_PARALLELISM);
    assertThat(options.taskSlots()).isEqualTo(TransformOptions.DEFAULT_TASK_SLOTS);
    assertThat(options.tenants()).isEqualTo(TransformOptions.DEFAULT_TENANTS).isEmpty();
    assertThat(options.flinkRestAddress()).isNull();
    assertThat(options.checkpointsUri()).isEqualTo(DATA.resolve("checkpoints").toUri().toString().replaceAll("/+$", ""));
    assertThat(options.stallAfter()).isEqualTo(TransformOptions.defaultStallAfter(TransformOptions.DEFAULT_CHECKPOINT_INTERVAL));
  }

  @Test
  void everySetterRoundTrips() {
    TransformOptions options = TransformOptions.builder(REDIS, DATA)
        .checkpointInterval(Duration.ofMillis(300))
        .parallelism(2)
        .taskSlots(4)
        .tenants(Set.of("a", "b"))
        .flinkRestAddress("jobmanager:8081")
        .checkpointsUri("s3://bucket/checkpoints/")
        .stallAfter(Duration.ofSeconds(3))
        .build();
    assertThat(options).isEqualTo(new TransformOptions(REDIS, DATA, Duration.ofMillis(300), 2, 4, Set.of("a", "b"),
        "jobmanager:8081", "s3://bucket/checkpoints", Duration.ofSeconds(3)));
  }

  @Test
  void nullsTakeTheirDefaults() {
    TransformOptions options = TransformOptions.builder(REDIS, DATA).checkpointInterval(Duration.ofSeconds(10))
        .tenants(null).stallAfter(null).build();
    assertThat(options.tenants()).isEmpty();
    assertThat(options.stallAfter()).isEqualTo(Duration.ofSeconds(300));
    assertThat(TransformOptions.builder(REDIS, DATA).checkpointInterval(null).build().checkpointInterval())
        .isEqualTo(TransformOptions.DEFAULT_CHECKPOINT_INTERVAL);
  }

  @Test
  void theBuilderValidatesLikeTheConstructor() {
    assertThatThrownBy(() -> TransformOptions.builder(null, DATA).build())
        .isInstanceOf(NullPointerException.class).hasMessage("redisUri");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("dataDir");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, DATA).checkpointInterval(Duration.ofMillis(99)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("checkpoint interval must be at least 100 ms, got 99 ms");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, DATA).flinkRestAddress("jobmanager").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("Flink REST address must be host:port, got 'jobmanager'");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, DATA).parallelism(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("parallelism and task slots must be >= 1, got 0 and 32");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, DATA).taskSlots(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("parallelism and task slots must be >= 1, got 1 and 0");
    assertThatThrownBy(() -> TransformOptions.builder(REDIS, DATA).stallAfter(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("stall time must be positive, got 0 ms");
  }
}
