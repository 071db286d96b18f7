package dev.streamfold.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServerOptionsTest {
  private static final Path DATA = Path.of("/tmp/streamfold-server-options-test");
  private static final String PULSAR = "pulsar://127.0.0.1:6650";
  private static final String ADMIN = "http://127.0.0.1:8080";
  private static final String REDIS = "redis://127.0.0.1:6379";

  private static ServerOptions.Builder builder() {
    return ServerOptions.builder(DATA, PULSAR, ADMIN, REDIS);
  }

  @Test
  void theBuilderDefaultsAreTheDefaultConstants() {
    ServerOptions options = builder().build();
    assertThat(options.dataDir()).isEqualTo(DATA);
    assertThat(options.pulsarServiceUrl()).isEqualTo(PULSAR);
    assertThat(options.pulsarAdminUrl()).isEqualTo(ADMIN);
    assertThat(options.redisUri()).isEqualTo(REDIS);
    assertThat(options.grpcPort()).isEqualTo(ServerOptions.DEFAULT_GRPC_PORT).isZero();
    assertThat(options.respPort()).isEqualTo(ServerOptions.DEFAULT_RESP_PORT).isZero();
    assertThat(options.bindHost()).isEqualTo(ServerOptions.DEFAULT_BIND_HOST);
    assertThat(options.defaultTenant()).isEqualTo(ServerOptions.DEFAULT_TENANT);
    assertThat(options.checkpointInterval()).isEqualTo(ServerOptions.DEFAULT_CHECKPOINT_INTERVAL);
    assertThat(options.tenants()).isEqualTo(ServerOptions.DEFAULT_TENANTS).isEmpty();
    assertThat(options.bookieAdminUrl()).isNull();
    assertThat(options.flinkRestAddress()).isNull();
    assertThat(options.checkpointsUri()).isNull();
    assertThat(options.metricsPort()).isEqualTo(ServerOptions.DEFAULT_METRICS_PORT).isEqualTo(ServerOptions.METRICS_DISABLED);
  }

  @Test
  void everySetterRoundTrips() {
    ServerOptions options = builder()
        .grpcPort(9090)
        .respPort(6380)
        .bindHost("0.0.0.0")
        .defaultTenant("acme")
        .checkpointInterval(Duration.ofMillis(300))
        .tenants(Set.of("acme", "globex"))
        .bookieAdminUrl("http://127.0.0.1:8000")
        .flinkRestAddress("jobmanager:8081")
        .checkpointsUri("s3://bucket/checkpoints")
        .metricsPort(0)
        .clockInterval(Duration.ofMillis(250))
        .build();
    assertThat(options).isEqualTo(new ServerOptions(DATA, PULSAR, ADMIN, REDIS, 9090, 6380, "0.0.0.0", "acme",
        Duration.ofMillis(300), Set.of("acme", "globex"), "http://127.0.0.1:8000", "jobmanager:8081",
        "s3://bucket/checkpoints", 0, Duration.ofMillis(250)));
  }

  @Test
  void nullsTakeTheirDefaults() {
    ServerOptions options = builder().bindHost(null).defaultTenant(null).checkpointInterval(null).tenants(null)
        .clockInterval(null).build();
    assertThat(options).isEqualTo(builder().build());
    assertThat(options.clockInterval()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void theBuilderValidatesLikeTheConstructor() {
    assertThatThrownBy(() -> ServerOptions.builder(null, PULSAR, ADMIN, REDIS).build())
        .isInstanceOf(NullPointerException.class).hasMessage("dataDir (--data-dir)");
    assertThatThrownBy(() -> ServerOptions.builder(DATA, null, ADMIN, REDIS).build())
        .isInstanceOf(NullPointerException.class).hasMessage("pulsarServiceUrl (--pulsar-service-url)");
    assertThatThrownBy(() -> ServerOptions.builder(DATA, PULSAR, null, REDIS).build())
        .isInstanceOf(NullPointerException.class).hasMessage("pulsarAdminUrl (--pulsar-admin-url)");
    assertThatThrownBy(() -> ServerOptions.builder(DATA, PULSAR, ADMIN, null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("redisUri (--redis-uri)");
    assertThatThrownBy(() -> builder().metricsPort(-2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metricsPort (--metrics-port) must be 0 (a free port) to 65535, or -1 for none: -2");
    assertThatThrownBy(() -> builder().metricsPort(65_536).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metricsPort (--metrics-port) must be 0 (a free port) to 65535, or -1 for none: 65536");
    assertThatThrownBy(() -> builder().clockInterval(Duration.ofMillis(-5)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clockInterval (--clock-interval-ms) must be >= 0 (0: no clock): -5 ms");
  }
}
