package dev.streamfold.ledger.pulsar.clock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.ledger.LedgerException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.Test;

/** A clock that cannot be read (no broker answers) is an error naming the tenant's clock, on every read. */
class ClockReaderTest {
  @Test
  void aClockThatCannotBeReadIsUnavailableNamingTheTenantsClockTopic() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort(); // closed again: nothing listens there
    }
    try (PulsarClient client = PulsarClient.builder().serviceUrl("pulsar://127.0.0.1:" + closedPort)
        .operationTimeout(1, TimeUnit.SECONDS).connectionTimeout(500, TimeUnit.MILLISECONDS).build()) {
      ClockReader reader = new ClockReader(client, Duration.ofSeconds(1), null);
      String clock = "the clock of tenant 'acme' (persistent://acme/system/clock)";
      assertThatThrownBy(() -> reader.last("acme")).isInstanceOf(LedgerException.Unavailable.class)
          .hasMessageContaining("cannot read " + clock);
      assertThatThrownBy(() -> reader.ticks("acme", 0, 10)).isInstanceOf(LedgerException.Unavailable.class)
          .hasMessageContaining("cannot read " + clock);
      assertThatThrownBy(() -> reader.first("acme", tick -> true)).isInstanceOf(LedgerException.Unavailable.class)
          .hasMessageContaining("cannot read " + clock);
    }
  }
}
