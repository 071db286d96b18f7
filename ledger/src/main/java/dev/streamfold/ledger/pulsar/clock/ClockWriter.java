package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.clock.NextTick;
import dev.streamfold.ledger.clock.TickCodec;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.ProducerAccessMode;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of one tenant's clock. It asks Pulsar for exclusive access to the clock topic
 * ({@link ProducerAccessMode#WaitForExclusive}): of all the writers of one tenant (one per server) exactly one
 * writes, the others wait and the first in line takes over when it goes (closed, or its server died). Once it
 * writes, it reads the last recorded tick, then every interval reads the streams' positions and records the
 * {@link NextTick next tick} when they moved, with the tick's number as the message's sequence ID.
 *
 * <p>Contracts: tick numbers are consecutive across writers (a writer that takes over continues after the last
 * recorded tick; the broker's deduplication drops a tick number sent twice); a tick covers only events the
 * ledger persisted (the brokers' last persisted message IDs); a failed send is never assumed recorded: the
 * writer reads the last recorded tick again before its next one.
 */
final class ClockWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClockWriter.class);
  /** Wait before asking again for the clock topic after Pulsar refused or failed. */
  static final Duration RETRY_DELAY = Duration.ofSeconds(2);

  private final PulsarClient client;
  private final String tenant;
  private final StreamPositions positions;
  private final ClockReader reader;
  private final ScheduledExecutorService scheduler;
  private final Duration interval;
  private final Duration timeout;
  private final Clock clock;
  private Producer<byte[]> producer;
  private ScheduledFuture<?> rounds;
  private Tick last; // null: read it from the clock before the next tick
  private boolean closed;

  ClockWriter(PulsarClient client, String tenant, StreamPositions positions, ClockReader reader,
      ScheduledExecutorService scheduler, Duration interval, Duration timeout, Clock clock) {
    this.client = client;
    this.tenant = tenant;
    this.positions = positions;
    this.reader = reader;
    this.scheduler = scheduler;
    this.interval = interval;
    this.timeout = timeout;
    this.clock = clock;
  }

  /** Ask for the clock topic; once granted, write ticks every interval. Returns at once. */
  synchronized void start() {
    if (closed) {
      return;
    }
    client.newProducer(Schema.BYTES).topic(ClockTopic.of(tenant)).producerName(ClockTopic.PRODUCER_NAME)
        .accessMode(ProducerAccessMode.WaitForExclusive).enableBatching(false)
        .sendTimeout((int) timeout.toMillis(), TimeUnit.MILLISECONDS)
        .createAsync()
        .whenComplete((granted, failed) -> {
          if (failed != null) {
            LOG.warn("clock of tenant '{}': cannot open {} ({}); asking again in {} s", tenant, ClockTopic.of(tenant),
                failed.toString(), RETRY_DELAY.toSeconds());
            retryLater();
          } else {
            granted(granted);
          }
        });
  }

  private synchronized void granted(Producer<byte[]> granted) {
    if (closed) {
      granted.closeAsync();
      return;
    }
    LOG.info("clock of tenant '{}': this server writes it ({})", tenant, ClockTopic.of(tenant));
    producer = granted;
    last = null;
    rounds = scheduler.scheduleWithFixedDelay(this::round, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void retryLater() {
    if (!closed) {
      scheduler.schedule(this::start, RETRY_DELAY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** A stream of the tenant that this server appended to or created (not synchronized: the append path calls it). */
  void touched(StreamRef stream) {
    positions.touched(stream);
  }

  /** True while this writer holds the clock topic. */
  synchronized boolean writing() {
    return producer != null && producer.isConnected();
  }

  /** One round: read the positions and record the next tick if they moved. */
  synchronized void round() {
    if (closed || producer == null) {
      return;
    }
    try {
      if (last == null) {
        last = reader.last(tenant).orElse(Tick.ZERO);
      }
      Optional<Tick> next = NextTick.after(last, positions.observe(timeout), clock.millis());
      if (next.isPresent()) {
        producer.newMessage().sequenceId(next.get().number()).value(TickCodec.encode(next.get())).send();
        last = next.get();
      }
    } catch (PulsarClientException.AlreadyClosedException | PulsarClientException.ProducerFencedException gone) {
      lost();
    } catch (RuntimeException | PulsarClientException e) {
      last = null;
      LOG.warn("clock of tenant '{}': no tick this round: {}", tenant, e.toString());
    }
  }

  /** The producer was closed or fenced: stop the rounds and wait in line again. */
  private void lost() {
    LOG.warn("clock of tenant '{}': lost {}; waiting to write it again", tenant, ClockTopic.of(tenant));
    if (rounds != null) {
      rounds.cancel(false);
    }
    producer.closeAsync();
    producer = null;
    start();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (rounds != null) {
      rounds.cancel(false);
    }
    if (producer != null) {
      producer.closeAsync();
    }
    positions.close();
  }
}
