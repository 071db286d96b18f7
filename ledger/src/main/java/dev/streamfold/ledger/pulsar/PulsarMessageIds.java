package dev.streamfold.ledger.pulsar;

import dev.streamfold.ledger.MessageIdText;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;

/** Converts between Pulsar's {@link MessageId} and {@link MessageIdText}. */
public final class PulsarMessageIds {
  private PulsarMessageIds() {}

  /**
   * Convert a Pulsar message ID.
   *
   * @param id a message ID from the Pulsar client (plain, batch or topic message ID)
   * @return its text form value
   * @throws IllegalArgumentException if {@code id} is not a positional message ID (e.g. a multi-topic ID)
   */
  public static MessageIdText toText(MessageId id) {
    if (id instanceof MessageIdAdv adv) {
      return new MessageIdText(adv.getLedgerId(), adv.getEntryId(), adv.getPartitionIndex(), adv.getBatchIndex());
    }
    throw new IllegalArgumentException("not a positional message ID: " + id + " (" + id.getClass().getName() + ")");
  }

  /**
   * Convert to a Pulsar message ID.
   *
   * @param text the message ID
   * @return a {@link BatchMessageIdImpl} when {@code batchIndex >= 0}, else a {@link MessageIdImpl}
   */
  public static MessageId toPulsar(MessageIdText text) {
    if (text.batchIndex() >= 0) {
      return new BatchMessageIdImpl(text.ledgerId(), text.entryId(), text.partition(), text.batchIndex());
    }
    return new MessageIdImpl(text.ledgerId(), text.entryId(), text.partition());
  }
}
