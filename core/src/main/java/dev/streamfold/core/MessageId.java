package dev.streamfold.core;

import java.util.Comparator;

/**
 * Pulsar's position of one message, in the text form {@code ledgerId:entryId:partition:batchIndex}
 * (docs/design.md glossary). {@code partition} is -1 for an unpartitioned topic and {@code batchIndex} is
 * -1 for a message that was not sent in a batch. The text form round-trips exactly.
 *
 * @param ledgerId BookKeeper ledger id (a segment of the topic), >= -1
 * @param entryId entry within the ledger, >= -1
 * @param partition topic partition index, or -1 when unpartitioned
 * @param batchIndex index of the message inside a batched entry, or -1 when not batched
 */
public record MessageId(long ledgerId, long entryId, int partition, int batchIndex)
    implements Comparable<MessageId> {

  /** Order within one partition: ledger, then entry, then batch index (Pulsar's own order). */
  private static final Comparator<MessageId> ORDER = Comparator.comparingLong(MessageId::ledgerId)
      .thenComparingLong(MessageId::entryId)
      .thenComparingInt(MessageId::batchIndex);

  /**
   * Create a message ID.
   *
   * @throws IllegalArgumentException if a component is below -1
   */
  public MessageId {
    if (ledgerId < -1 || entryId < -1 || partition < -1 || batchIndex < -1) {
      throw new IllegalArgumentException("message ID components must be >= -1, got "
          + ledgerId + ":" + entryId + ":" + partition + ":" + batchIndex);
    }
  }

  /**
   * Parse the text form {@code ledgerId:entryId:partition:batchIndex}.
   *
   * @param text e.g. {@code 12:345:-1:7}
   * @return the message ID
   * @throws IllegalArgumentException if the text is not four integers separated by ':' (the message
   *     quotes the text)
   */
  public static MessageId parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("message ID is missing");
    }
    String[] parts = text.trim().split(":", -1);
    if (parts.length != 4) {
      throw new IllegalArgumentException("invalid message ID '" + text
          + "': expected ledgerId:entryId:partition:batchIndex, e.g. 12:345:-1:-1");
    }
    try {
      return new MessageId(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
          Integer.parseInt(parts[2]), Integer.parseInt(parts[3]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid message ID '" + text + "': components must be integers", e);
    }
  }

  /**
   * Compare positions within one partition.
   *
   * @throws IllegalArgumentException if the partitions differ
   */
  @Override
  public int compareTo(MessageId other) {
    if (partition != other.partition) {
      throw new IllegalArgumentException("cannot order message IDs of partitions " + partition
          + " and " + other.partition);
    }
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return ledgerId + ":" + entryId + ":" + partition + ":" + batchIndex;
  }
}
