package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class ViewJobSpecTest {
  private static final TransformDefinition DEFINITION = new TransformDefinition("t", "v", "SELECT 1", "s",
      List.of("k"), new LinkedHashMap<>(), 1, 0);

  @Test
  void builderKeepsEveryFieldAndDefaultsTheCheckpointIntervalAndParallelism() {
    List<StreamColumn> columns = List.of();
    ViewJobSpec spec = ViewJobSpec.builder(DEFINITION)
        .stream(columns, "persistent://t/streams/s", 4, 250)
        .ledger("pulsar://127.0.0.1:6650", "http://127.0.0.1:8080")
        .redisUri("redis://127.0.0.1:6379")
        .checkpoints("file:///tmp/c", TransformOptions.DEFAULT_CHECKPOINT_INTERVAL)
        .build();

    assertThat(spec).isEqualTo(new ViewJobSpec(DEFINITION, columns, "persistent://t/streams/s", 4, 250,
        "pulsar://127.0.0.1:6650", "http://127.0.0.1:8080", "redis://127.0.0.1:6379", "file:///tmp/c",
        Duration.ofSeconds(1), TransformOptions.DEFAULT_PARALLELISM, new java.util.TreeMap<>(),
        new java.util.TreeMap<>()));
    assertThat(ViewJobSpec.builder(DEFINITION).stream(columns, "x", 0, 0).ledger("a", "b").redisUri("r")
        .checkpoints("c", Duration.ofMillis(200)).parallelism(3).build())
        .extracting(ViewJobSpec::checkpointInterval, ViewJobSpec::parallelism)
        .containsExactly(Duration.ofMillis(200), 3);
  }

  @Test
  void aMissingFieldIsNamed() {
    assertThatThrownBy(() -> ViewJobSpec.builder(DEFINITION).stream(List.of(), "x", 0, 0).ledger("a", "b")
        .checkpoints("c", Duration.ofSeconds(1)).build())
        .isInstanceOf(NullPointerException.class).hasMessage("redisUri");
    assertThatThrownBy(() -> ViewJobSpec.builder(DEFINITION).stream(List.of(), "x", 0, 0).ledger("a", "b")
        .redisUri("r").checkpoints("c", Duration.ofSeconds(1)).parallelism(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parallelism >= 1");
  }
}
