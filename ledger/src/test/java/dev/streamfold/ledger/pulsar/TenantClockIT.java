package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.clock.TickIndex;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tenant's clock on a real Pulsar broker, written by two ledgers (as two servers would) while each appends to
 * its own stream: one writes at a time, the other takes over when it stops, and the recorded ticks are one
 * sequence that covers every acknowledged event once and nothing else.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TenantClockIT {
  private static final List<StreamColumn> COLUMNS = List.of(new StreamColumn("n", "BIGINT"));
  private static final Duration INTERVAL = Duration.ofMillis(50);

  private static PulsarLedger connect(Duration clockInterval) {
    return PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl())
        .withClockInterval(clockInterval));
  }

  private static List<EventEnvelope> events(int from, int count) {
    List<EventEnvelope> events = new ArrayList<>();
    for (int n = from; n < from + count; n++) {
      events.add(new EventEnvelope("k" + (n % 11), "", 1000L + n, "{\"n\":" + n + "}", "", Map.of()));
    }
    return events;
  }

  /** Append {@code batches} batches to a stream, pausing at the latch after half of them; the acknowledged IDs. */
  private static CompletableFuture<List<MessageId>> appendInBatches(PulsarLedger ledger, StreamRef stream, int batches,
      int perBatch, CountDownLatch halfway, CountDownLatch resume) {
    return CompletableFuture.supplyAsync(() -> {
      List<MessageId> ids = new ArrayList<>();
      for (int b = 0; b < batches; b++) {
        if (b == batches / 2) {
          halfway.countDown();
          try {
            resume.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        for (Appended a : ledger.append(stream, events(b * perBatch, perBatch)).join()) {
          ids.add(a.messageId());
        }
      }
      return ids;
    });
  }

  @Test
  void twoWritersRecordOneSequenceOfTicksThatCoversEveryAcknowledgedEventOnce() throws Exception {
    String tenant = Testkit.uniqueName("clock");
    StreamRef orders = new StreamRef(tenant, "orders");
    StreamRef customers = new StreamRef(tenant, "customers");
    try (PulsarLedger first = connect(INTERVAL); PulsarLedger second = connect(INTERVAL);
         PulsarLedger reader = connect(Duration.ZERO)) {
      first.createStream(orders, COLUMNS, 0, 3);
      second.createStream(customers, COLUMNS, 0, 0);
      first.ensureTenant(tenant);
      second.ensureTenant(tenant);
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> first.writesClock(tenant) || second.writesClock(tenant));
      PulsarLedger writer = first.writesClock(tenant) ? first : second;
      PulsarLedger standby = writer == first ? second : first;
      assertThat(standby.writesClock(tenant)).as("one writer at a time").isFalse();
      assertThat(reader.writesClock(tenant)).as("a ledger without a clock interval writes none").isFalse();

      CountDownLatch halfway = new CountDownLatch(2);
      CountDownLatch resume = new CountDownLatch(1);
      CompletableFuture<List<MessageId>> orderIds = appendInBatches(first, orders, 40, 50, halfway, resume);
      CompletableFuture<List<MessageId>> customerIds = appendInBatches(second, customers, 40, 20, halfway, resume);
      assertThat(halfway.await(60, TimeUnit.SECONDS)).isTrue();
      long beforeHandOver = reader.lastTick(tenant).map(Tick::number).orElse(0L);
      writer.stopClock(tenant); // the writing server goes; the other one takes over
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> standby.writesClock(tenant));
      resume.countDown();

      Set<MessageId> orderSet = new HashSet<>(orderIds.get(2, TimeUnit.MINUTES));
      Set<MessageId> customerSet = new HashSet<>(customerIds.get(2, TimeUnit.MINUTES));
      assertThat(orderSet).hasSize(2000);
      assertThat(customerSet).hasSize(800);
      MessageId lastCustomer = Collections.max(customerSet);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> reader.lastTick(tenant)
          .filter(t -> t.covers("customers", lastCustomer) && orderSet.stream().allMatch(id -> t.covers("orders", id)))
          .isPresent());

      List<Tick> ticks = reader.ticks(tenant, 0, 1_000_000);
      TickIndex index = new TickIndex(ticks); // consecutive numbers, each covering all of the one before
      assertThat(ticks.get(0).number()).isEqualTo(1);
      assertThat(ticks.get(ticks.size() - 1).number()).isGreaterThan(beforeHandOver);
      assertThat(reader.ticks(tenant, ticks.size() - 2, 10)).isEqualTo(ticks.subList(ticks.size() - 2, ticks.size()));
      for (Tick tick : ticks) {
        assertThat(tick.streams().keySet()).isSubsetOf("orders", "customers");
        // a tick covers only acknowledged events: every position it records is one
        tick.position("orders").messageIds().forEach(id -> assertThat(orderSet).as("tick " + tick.number()).contains(id));
        tick.position("customers").messageIds().forEach(id -> assertThat(customerSet).as("tick " + tick.number()).contains(id));
      }
      // every acknowledged event has a first covering tick: the slices between ticks partition the events
      orderSet.forEach(id -> assertThat(index.firstCovering("orders", id)).isPresent());
      customerSet.forEach(id -> assertThat(index.firstCovering("customers", id)).isPresent());
      assertThat(ticks.size()).as("ticks were written while events arrived, not only at the end").isGreaterThan(2);

      // nothing appended: no tick
      long last = ticks.get(ticks.size() - 1).number();
      Thread.sleep(10 * INTERVAL.toMillis()); // ten rounds of the writer, on purpose: none may record a tick
      assertThat(reader.lastTick(tenant).orElseThrow().number()).isEqualTo(last);

      // an idle stream appended to through a server that does not write the clock (so the writer's server was not
      // told of it) is still covered: the writer asks about idle streams at least every PollSchedule.DEFAULT_MAX_IDLE
      Thread.sleep(2000); // lets both streams' waits grow to the longest
      StreamRef itsOwn = writer == first ? orders : customers; // one appender per stream (producer name)
      MessageId late = writer.append(itsOwn, events(10_000, 1)).join().get(0).messageId();
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> reader.lastTick(tenant).filter(t -> t.covers(itsOwn.stream(), late)).isPresent());
    }
  }
}
