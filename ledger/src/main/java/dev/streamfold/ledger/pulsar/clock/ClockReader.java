package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.Tick;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.clock.TickCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/** Reads a tenant's recorded ticks from its clock topic. Thread-safe (each call opens its own reader). */
public final class ClockReader {
  private final PulsarClient client;
  private final Duration timeout;
  private final TickLocator locator; // null: read from the clock's first tick

  /**
   * Create the reader.
   *
   * @param client the Pulsar client (not closed by this class)
   * @param timeout longest wait for one tick
   * @param locator finds a tick without reading those before it; null to read from the clock's first tick
   */
  public ClockReader(PulsarClient client, Duration timeout, TickLocator locator) {
    this.client = client;
    this.timeout = timeout;
    this.locator = locator;
  }

  /**
   * The last recorded tick of a tenant's clock.
   *
   * @return the tick, or empty before the clock's first tick
   * @throws LedgerException.Unavailable if Pulsar fails or a stored tick does not decode (the message names the
   *     clock topic)
   */
  public Optional<Tick> last(String tenant) {
    String topic = ClockTopic.of(tenant);
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.latest)
        .startMessageIdInclusive().create()) {
      if (!reader.hasMessageAvailable()) {
        return Optional.empty();
      }
      Message<byte[]> message = reader.readNext((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
      return message == null ? Optional.empty() : Optional.of(decode(topic, message));
    } catch (IOException | IllegalStateException e) {
      throw new LedgerException.Unavailable("cannot read the clock of tenant '" + tenant + "' (" + topic + ")", e);
    }
  }

  /**
   * Recorded ticks of a tenant's clock, in order, from the first tick after {@code afterTick}.
   *
   * @param afterTick a tick number (0: from the clock's first tick)
   * @param maxTicks the most ticks to return, > 0
   * @return consecutive ticks, empty when none was recorded after {@code afterTick}
   * @throws IllegalArgumentException if {@code maxTicks <= 0} or {@code afterTick < 0}
   * @throws LedgerException.Unavailable if Pulsar fails or a stored tick does not decode
   */
  public List<Tick> ticks(String tenant, long afterTick, int maxTicks) {
    if (maxTicks <= 0 || afterTick < 0) {
      throw new IllegalArgumentException("need afterTick >= 0 and maxTicks > 0, got " + afterTick + ", " + maxTicks);
    }
    List<Tick> ticks = new ArrayList<>();
    Optional<MessageId> start = locator == null || afterTick == 0 ? Optional.empty()
        : locator.find(ClockTopic.of(tenant), afterTick);
    scan(tenant, start, tick -> {
      if (tick.number() > afterTick) {
        ticks.add(tick);
      }
      return ticks.size() < maxTicks;
    });
    return ticks;
  }

  /**
   * The first recorded tick of a tenant's clock that passes a monotone test: one that fails for the ticks before
   * some tick and passes from it on (whether a tick covers a message ID, was recorded after a time). The ticks
   * before it are mostly not read ({@link TickLocator#lastBefore}).
   *
   * @return the tick, or empty when none passes
   * @throws LedgerException.Unavailable if Pulsar fails or a stored tick does not decode
   */
  public Optional<Tick> first(String tenant, Predicate<Tick> test) {
    Tick[] found = {null};
    Optional<MessageId> start = locator == null ? Optional.empty() : locator.lastBefore(ClockTopic.of(tenant), test);
    scan(tenant, start, tick -> {
      if (test.test(tick)) {
        found[0] = tick;
      }
      return found[0] == null;
    });
    return Optional.ofNullable(found[0]);
  }

  /**
   * Read a tenant's recorded ticks in order from a tick (or the clock's first), until none is left or {@code next}
   * says stop.
   *
   * @param start where to start reading (inclusive), empty for the clock's first tick
   * @param next takes each tick; false to stop
   * @throws LedgerException.Unavailable if Pulsar fails or a stored tick does not decode
   */
  private void scan(String tenant, Optional<MessageId> start, Predicate<Tick> next) {
    String topic = ClockTopic.of(tenant);
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(start.orElse(MessageId.earliest))
        .startMessageIdInclusive().create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> message = reader.readNext((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null || !next.test(decode(topic, message))) {
          return;
        }
      }
    } catch (IOException | IllegalStateException e) {
      throw new LedgerException.Unavailable("cannot read the clock of tenant '" + tenant + "' (" + topic + ")", e);
    }
  }

  private static Tick decode(String topic, Message<byte[]> message) {
    return TickCodec.decode(message.getValue(), topic + " at " + message.getMessageId());
  }
}
