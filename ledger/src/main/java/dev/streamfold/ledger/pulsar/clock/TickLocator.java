package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.Tick;
import dev.streamfold.ledger.clock.TickCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds where a tick is stored in a clock topic without reading the ticks before it. A clock topic holds only ticks,
 * one an entry, numbered 1, 2, 3, ... in entry order (the writer continues after the last recorded tick; the broker's
 * deduplication stores a resent tick once), so the {@code k}-th entry over the topic's segments (its ledgers, from
 * the broker's internal stats) holds tick {@code k + 1}. Every answer is checked by reading the tick found; when the
 * segments do not match that layout (or cannot be read), the locator answers nothing and the caller reads from the
 * clock's first tick, as it would without it.
 *
 * <p>Why: a clock ticking ten times a second while events arrive records 864,000 ticks a day; a view over several
 * streams restarting after its committed tick, or a replay to a tick, would otherwise read all of them first.
 */
public final class TickLocator {
  private static final Logger LOG = LoggerFactory.getLogger(TickLocator.class);
  /** A clock of fewer entries than this is read from its first tick: a reader reads that many in well under a second. */
  public static final long DEFAULT_SCAN_ENTRIES = 20_000;

  private final PulsarAdmin admin;
  private final PulsarClient client;
  private final Duration timeout;
  private final long scanEntries;

  /**
   * @param admin reads the clock topics' segments (not closed by this class)
   * @param client reads ticks (not closed by this class)
   * @param timeout longest wait for one tick
   * @param scanEntries below this many entries, answer nothing (reading from the first tick is as quick)
   */
  public TickLocator(PulsarAdmin admin, PulsarClient client, Duration timeout, long scanEntries) {
    this.admin = admin;
    this.client = client;
    this.timeout = timeout;
    this.scanEntries = scanEntries;
  }

  /** The segments of a clock topic: ledger IDs and entry counts, in order. */
  private record Segments(List<long[]> ledgers, long entries) {
    MessageId at(long index) {
      long left = index;
      for (long[] ledger : ledgers) {
        if (left < ledger[1]) {
          return new MessageIdImpl(ledger[0], left, -1);
        }
        left -= ledger[1];
      }
      throw new IllegalArgumentException("entry " + index + " of " + entries);
    }
  }

  /**
   * The message ID of a tick, checked by reading it.
   *
   * @param topic the clock topic
   * @param tick a tick number, >= 1
   * @return where tick {@code tick} is stored; empty when the clock is short, holds no such tick yet, or its layout
   *     is not one tick an entry from tick 1 (then read from the first tick)
   */
  public Optional<MessageId> find(String topic, long tick) {
    if (tick < 1) {
      return Optional.empty();
    }
    Optional<Segments> segments = segments(topic);
    if (segments.isEmpty() || tick > segments.get().entries()) {
      return Optional.empty();
    }
    MessageId id = segments.get().at(tick - 1);
    return read(topic, id).filter(t -> t.number() == tick).map(t -> id);
  }

  /**
   * The message ID of the last tick before the first that passes a monotone test (false for the ticks before some
   * tick, true from it on), by bisection over the entries, each step one tick read; checked.
   *
   * @param topic the clock topic
   * @param passes the test
   * @return where the last failing tick is stored; empty when the clock is short, its first tick passes, or its
   *     layout is not one tick an entry (then read from the first tick)
   */
  public Optional<MessageId> lastBefore(String topic, Predicate<Tick> passes) {
    Optional<Segments> found = segments(topic);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Segments segments = found.get();
    long lo = 0; // tick lo + 1 fails the test
    long hi = segments.entries(); // tick hi + 1 passes it, or does not exist
    Optional<Tick> first = read(topic, segments.at(0));
    if (first.isEmpty() || first.get().number() != 1 || passes.test(first.get())) {
      return Optional.empty();
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      Optional<Tick> tick = read(topic, segments.at(mid));
      if (tick.isEmpty() || tick.get().number() != mid + 1) {
        return Optional.empty(); // not one tick an entry
      }
      if (passes.test(tick.get())) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return Optional.of(segments.at(lo));
  }

  /** The segments of a topic with at least {@code scanEntries} entries; empty when short or unreadable. */
  private Optional<Segments> segments(String topic) {
    try {
      var stats = admin.topics().getInternalStats(topic);
      List<long[]> ledgers = new ArrayList<>();
      long entries = 0;
      for (int i = 0; i < stats.ledgers.size(); i++) {
        var ledger = stats.ledgers.get(i);
        // the last (open) ledger's count is not in its entry until it closes: the topic's total less the others'
        long count = i < stats.ledgers.size() - 1 ? ledger.entries : stats.numberOfEntries - entries;
        if (count < 0) {
          return Optional.empty();
        }
        if (count > 0) {
          ledgers.add(new long[] {ledger.ledgerId, count});
          entries += count;
        }
      }
      return entries < scanEntries || entries == 0 ? Optional.empty() : Optional.of(new Segments(ledgers, entries));
    } catch (PulsarAdminException | RuntimeException e) {
      LOG.debug("cannot read the segments of {}; reading from its first tick: {}", topic, e.toString());
      return Optional.empty();
    }
  }

  /** The tick stored at a message ID, or empty when there is none or it cannot be read. */
  private Optional<Tick> read(String topic, MessageId id) {
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(id).startMessageIdInclusive()
        .create()) {
      Message<byte[]> message = reader.readNext((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
      return message == null ? Optional.empty()
          : Optional.of(TickCodec.decode(message.getValue(), topic + " at " + message.getMessageId()));
    } catch (IOException | RuntimeException e) { // PulsarClientException is an IOException, as is close()'s
      LOG.debug("cannot read {} at {}: {}", topic, id, e.toString());
      return Optional.empty();
    }
  }
}
