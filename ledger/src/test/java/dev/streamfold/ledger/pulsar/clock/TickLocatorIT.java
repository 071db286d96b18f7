package dev.streamfold.ledger.pulsar.clock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.clock.TickCodec;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Testkit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TickLocator} on a real clock topic of 400 ticks over several segments (the test broker rolls a segment over
 * every 50 entries), with no lower bound on the clock's length: it finds each tick's entry, bisects to the last tick
 * before the first covering a message ID, answers nothing where the layout is not one tick an entry, and the clock's
 * readers built on it read what they read from the first tick.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TickLocatorIT {
  private static final int TICKS = 400;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static PulsarClient client;
  private static PulsarAdmin admin;
  private static String tenant;
  private static String topic;

  private static Tick tick(long n) {
    // tick n covers message n of a stream: "covers" is monotone, as in a real clock
    return new Tick(n, 1000L * n, new TreeMap<>(Map.of("s", PositionVector.of(List.of(MessageId.parse("7:" + n + ":-1:-1"))))));
  }

  @BeforeAll
  static void recordTicks() throws Exception {
    tenant = Testkit.uniqueName("locate");
    try (PulsarLedger ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(),
        Testkit.pulsar().adminUrl()))) {
      ledger.ensureTenant(tenant);
    }
    client = PulsarClient.builder().serviceUrl(Testkit.pulsar().serviceUrl()).build();
    admin = PulsarAdmin.builder().serviceHttpUrl(Testkit.pulsar().adminUrl()).build();
    topic = ClockTopic.of(tenant);
    try (Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(topic).enableBatching(false).create()) {
      for (int n = 1; n <= TICKS; n++) {
        producer.newMessage().sequenceId(n).value(TickCodec.encode(tick(n))).send();
      }
    }
  }

  @AfterAll
  static void close() throws Exception {
    admin.close();
    client.close();
  }

  @Test
  void findsEveryTicksEntryAcrossSegmentsAndNothingBeyondTheLast() throws Exception {
    TickLocator locator = new TickLocator(admin, client, TIMEOUT, 0);
    assertThat(admin.topics().getInternalStats(topic).ledgers).as("several segments").hasSizeGreaterThan(2);
    for (long n : new long[] {1, 49, 50, 51, 200, 399, 400}) {
      Optional<org.apache.pulsar.client.api.MessageId> id = locator.find(topic, n);
      assertThat(id).as("tick %d", n).isPresent();
      try (ClockTail tail = new ClockTail(client, tenant, n, locator)) {
        if (n < TICKS) {
          assertThat(tail.next(TIMEOUT).map(Tick::number)).as("after tick %d", n).contains(n + 1);
        }
      }
    }
    assertThat(locator.find(topic, TICKS + 1)).isEmpty();
    assertThat(new TickLocator(admin, client, TIMEOUT, TICKS + 1).find(topic, 200)).as("a short clock is read whole")
        .isEmpty();
  }

  @Test
  void bisectsToTheLastTickBeforeTheFirstThatPassesAMonotoneTest() {
    TickLocator locator = new TickLocator(admin, client, TIMEOUT, 0);
    ClockReader reader = new ClockReader(client, TIMEOUT, locator);
    ClockReader scanning = new ClockReader(client, TIMEOUT, null);
    for (int n : new int[] {2, 50, 51, 137, 400}) {
      MessageId id = MessageId.parse("7:" + n + ":-1:-1");
      assertThat(locator.lastBefore(topic, t -> t.covers("s", id))).as("message %d", n).isPresent();
      assertThat(reader.first(tenant, t -> t.covers("s", id))).as("message %d", n)
          .isEqualTo(scanning.first(tenant, t -> t.covers("s", id))).map(Tick::number).contains((long) n);
    }
    assertThat(locator.lastBefore(topic, t -> true)).as("the first tick passes: read from it").isEmpty();
    assertThat(reader.first(tenant, t -> t.number() > TICKS)).isEmpty();
    assertThat(reader.ticks(tenant, 398, 10)).extracting(Tick::number).containsExactly(399L, 400L);
    assertThat(reader.ticks(tenant, 0, 2)).extracting(Tick::number).containsExactly(1L, 2L);
  }

  @Test
  void aTopicThatIsNotOneTickAnEntryGetsNoAnswer() throws Exception {
    String other = Testkit.uniqueName("locate");
    try (PulsarLedger ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(),
        Testkit.pulsar().adminUrl()))) {
      ledger.ensureTenant(other);
    }
    String gappy = ClockTopic.of(other);
    try (Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(gappy).enableBatching(false).create()) {
      for (int n = 1; n <= 120; n++) {
        producer.newMessage().sequenceId(n).value(TickCodec.encode(tick(n == 1 ? 1 : n + 10))).send(); // skips 2..11
      }
    }
    TickLocator locator = new TickLocator(admin, client, TIMEOUT, 0);
    assertThat(locator.find(gappy, 60)).isEmpty();
    assertThat(locator.lastBefore(gappy, t -> t.number() > 60)).isEmpty();
  }
}
