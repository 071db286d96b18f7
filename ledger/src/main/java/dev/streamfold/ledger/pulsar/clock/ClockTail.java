package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.Tick;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.clock.TickCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Follows one tenant's clock tick by tick, from a given tick on: the reader of a job that reads several streams
 * in the clock's order (backfill, then tail). One Pulsar reader stays open on the clock topic, from the starting
 * tick when a {@link TickLocator} finds it, else from the first tick; ticks at or before the starting one are read
 * once and skipped. Not thread-safe: one caller at a time.
 */
public final class ClockTail implements AutoCloseable {
  private final String tenant;
  private final String topic;
  private final Reader<byte[]> reader;
  private long last;

  /**
   * Open the clock of a tenant after a tick.
   *
   * @param client the Pulsar client (not closed by this class)
   * @param tenant the tenant
   * @param afterTick the last tick already read (0: from the clock's first tick)
   * @throws IllegalArgumentException if {@code afterTick < 0}
   * @throws LedgerException.Unavailable if Pulsar fails (the message names the clock topic)
   */
  public ClockTail(PulsarClient client, String tenant, long afterTick) {
    this(client, tenant, afterTick, null);
  }

  /**
   * Open the clock of a tenant after a tick, starting at that tick when the locator finds it (else at the first).
   *
   * @param locator finds the starting tick without reading those before it; null to read from the first tick
   * @see #ClockTail(PulsarClient, String, long)
   */
  public ClockTail(PulsarClient client, String tenant, long afterTick, TickLocator locator) {
    if (afterTick < 0) {
      throw new IllegalArgumentException("afterTick must be >= 0, got " + afterTick);
    }
    this.tenant = tenant;
    this.topic = ClockTopic.of(tenant);
    this.last = afterTick;
    MessageId start = locator == null || afterTick == 0 ? MessageId.earliest
        : locator.find(topic, afterTick).orElse(MessageId.earliest);
    try {
      this.reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(start).startMessageIdInclusive().create();
    } catch (PulsarClientException e) {
      throw unavailable("cannot open", e);
    }
  }

  /** The number of the last tick returned (or skipped at the start). */
  public long lastTick() {
    return last;
  }

  /**
   * The next tick, waiting for it to be recorded.
   *
   * @param wait the longest wait for a tick not yet recorded
   * @return the tick numbered {@link #lastTick()} + 1, or empty when none was recorded within {@code wait}
   * @throws LedgerException.Unavailable if Pulsar fails, a tick does not decode, or the clock skips a number (each
   *     message names the clock topic)
   */
  public Optional<Tick> next(Duration wait) {
    try {
      while (true) {
        Message<byte[]> message = reader.readNext((int) Math.max(1, wait.toMillis()), TimeUnit.MILLISECONDS);
        if (message == null) {
          return Optional.empty();
        }
        Tick tick = TickCodec.decode(message.getValue(), topic + " at " + message.getMessageId());
        if (tick.number() <= last) {
          continue; // at or before the starting tick
        }
        if (tick.number() != last + 1) {
          throw new LedgerException.Unavailable("the clock of tenant '" + tenant + "' (" + topic + ") records tick "
              + tick.number() + " after tick " + last + " at " + message.getMessageId() + ": ticks are consecutive", null);
        }
        last = tick.number();
        return Optional.of(tick);
      }
    } catch (PulsarClientException e) {
      throw unavailable("cannot read", e);
    }
  }

  private LedgerException.Unavailable unavailable(String what, Exception e) {
    return new LedgerException.Unavailable(what + " the clock of tenant '" + tenant + "' (" + topic + ")", e);
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      // closing a reader only releases the broker's cursor of a non-durable subscription
    }
  }
}
