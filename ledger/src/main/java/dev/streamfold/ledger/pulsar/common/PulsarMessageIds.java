package dev.streamfold.ledger.pulsar.common;

import dev.streamfold.core.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;

/** Converts between Pulsar's {@link org.apache.pulsar.client.api.MessageId} and {@link MessageId}. */
public final class PulsarMessageIds {
  private PulsarMessageIds() {}

  /**
   * Convert a Pulsar message ID.
   *
   * @param id a message ID from the Pulsar client (plain, batch or topic message ID)
   * @return its text form value
   * @throws IllegalArgumentException if {@code id} is not a positional message ID (e.g. a multi-topic ID)
   */
  public static MessageId toText(org.apache.pulsar.client.api.MessageId id) {
    if (id instanceof MessageIdAdv adv) {
      return new MessageId(adv.getLedgerId(), adv.getEntryId(), adv.getPartitionIndex(), adv.getBatchIndex());
    }
    throw new IllegalArgumentException("not a positional message ID: " + id + " (" + id.getClass().getName() + ")");
  }

  /**
   * Convert a Pulsar message ID read from one partition's own topic ({@code <topic>-partition-<p>}): a
   * consumer or reader of that topic reports partition -1, so the partition is set from the topic.
   *
   * @param id a positional message ID
   * @param partition the partition it was read from, or -1 for an unpartitioned stream (kept as reported)
   * @return its text form value with that partition
   * @throws IllegalArgumentException if {@code id} is not a positional message ID
   */
  public static MessageId toText(org.apache.pulsar.client.api.MessageId id, int partition) {
    MessageId text = toText(id);
    return partition < 0 || text.partition() == partition ? text
        : new MessageId(text.ledgerId(), text.entryId(), partition, text.batchIndex());
  }

  /**
   * The partition of a message from its topic name ({@code ...-partition-<p>}), or -1 when the topic is
   * not a partition's topic.
   *
   * @param topicName a full topic name, e.g. {@code persistent://t/ledger/s-partition-3}
   * @return the partition index, or -1
   */
  public static int partitionOfTopic(String topicName) {
    int at = topicName == null ? -1 : topicName.lastIndexOf("-partition-");
    if (at < 0) {
      return -1;
    }
    try {
      return Integer.parseInt(topicName.substring(at + "-partition-".length()));
    } catch (NumberFormatException notAPartition) {
      return -1;
    }
  }

  /**
   * Convert to a Pulsar message ID.
   *
   * @param text the message ID
   * @return a {@link BatchMessageIdImpl} when {@code batchIndex >= 0}, else a {@link MessageIdImpl}
   */
  public static org.apache.pulsar.client.api.MessageId toPulsar(MessageId text) {
    if (text.batchIndex() >= 0) {
      return new BatchMessageIdImpl(text.ledgerId(), text.entryId(), text.partition(), text.batchIndex());
    }
    return new MessageIdImpl(text.ledgerId(), text.entryId(), text.partition());
  }
}
