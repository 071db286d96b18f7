package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StackOptionsTest {
  private static final Path DATA = Path.of("/tmp/streamfold-stack-options-test");

  @Test
  void theBuilderDefaultsAreTheDefaultConstants() {
    StackOptions options = StackOptions.builder(DATA).build();
    assertThat(options.dataDir()).isEqualTo(DATA);
    assertThat(options.brokerPort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.webPort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.bookiePort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.redisPort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.grpcPort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.respPort()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.s3Port()).isEqualTo(StackOptions.DEFAULT_PORT);
    assertThat(options.serverStartTimeout()).isEqualTo(StackOptions.DEFAULT_SERVER_START_TIMEOUT);
    assertThat(options.detached()).isEqualTo(StackOptions.DEFAULT_DETACHED);
    assertThat(options.offloadDeletionLag()).isEqualTo(StackOptions.DEFAULT_OFFLOAD_DELETION_LAG);
  }

  @Test
  void everySetterRoundTripsAndToBuilderCopies() {
    StackOptions options = StackOptions.builder(DATA.resolve("x/..")).brokerPort(1).webPort(2).bookiePort(3)
        .redisPort(4).grpcPort(5).respPort(6).serverStartTimeout(Duration.ofSeconds(77)).detached(false).s3Port(7)
        .offloadDeletionLag(Duration.ofMinutes(5)).build();
    assertThat(options).isEqualTo(new StackOptions(DATA, 1, 2, 3, 4, 5, 6, Duration.ofSeconds(77), false, 7,
        Duration.ofMinutes(5)));
    assertThat(options.toBuilder().build()).isEqualTo(options);
    assertThat(options.withDetached(true)).isEqualTo(options.toBuilder().detached(true).build());
  }

  @Test
  void theBuilderValidatesLikeTheConstructor() {
    assertThatThrownBy(() -> StackOptions.builder(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("dataDir");
    assertThatThrownBy(() -> StackOptions.builder(DATA).serverStartTimeout(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("serverStartTimeout");
    assertThatThrownBy(() -> StackOptions.builder(DATA).offloadDeletionLag(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("offloadDeletionLag");
    assertThatThrownBy(() -> StackOptions.builder(DATA).brokerPort(70000).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("broker port must be 0..65535, got 70000");
    assertThatThrownBy(() -> StackOptions.builder(DATA).s3Port(-1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("s3 port must be 0..65535, got -1");
    assertThatThrownBy(() -> StackOptions.builder(DATA).serverStartTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("serverStartTimeout must be positive, got PT0S");
    assertThatThrownBy(() -> StackOptions.builder(DATA).offloadDeletionLag(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("offloadDeletionLag must be 0 or more, got PT-0.001S");
  }
}
