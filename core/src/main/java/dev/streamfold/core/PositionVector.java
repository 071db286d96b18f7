package dev.streamfold.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A position vector (docs/design.md glossary, "position"): one message ID per partition a reader has reached,
 * e.g. the last applied message ID of every partition a view reads, or the latest message ID of every
 * partition of a stream that holds events. An unpartitioned stream's vector holds at most one message ID
 * (partition -1); a partition without events is absent.
 *
 * <p>Text form: the message IDs' text forms in partition order, joined by ',' (e.g.
 * {@code 12:5:0:-1,13:2:1:-1}); the empty vector is the empty text. It is the form stored in a view's metadata
 * ({@code position}, {@code backfill_target_message_id}) and sent on the wire, and round-trips exactly:
 * {@code parse(v.toString())} equals {@code v}, and {@code parse(t).toString()} equals every {@code t} that
 * {@link #toString} produced.
 *
 * @param messageIds the message IDs, at most one per partition, ordered by partition (the constructor orders
 *     them)
 */
public record PositionVector(List<MessageId> messageIds) {
  /** The empty vector: nothing reached (text form ""). */
  public static final PositionVector EMPTY = new PositionVector(List.of());

  private static final Comparator<MessageId> BY_PARTITION = Comparator.comparingInt(MessageId::partition);

  /**
   * Create a vector of message IDs, ordered by partition.
   *
   * @throws IllegalArgumentException if two message IDs name the same partition (the message lists them)
   * @throws NullPointerException if {@code messageIds} or one of them is null
   */
  public PositionVector {
    List<MessageId> sorted = new ArrayList<>(messageIds);
    sorted.sort(BY_PARTITION);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).partition() == sorted.get(i - 1).partition()) {
        throw new IllegalArgumentException("position vector names partition " + sorted.get(i).partition()
            + " twice: " + join(messageIds));
      }
    }
    messageIds = List.copyOf(sorted);
  }

  /**
   * Create a vector of message IDs.
   *
   * @param messageIds at most one per partition, in any order
   * @return the vector
   * @throws IllegalArgumentException if two message IDs name the same partition
   */
  public static PositionVector of(Collection<MessageId> messageIds) {
    return messageIds.isEmpty() ? EMPTY : new PositionVector(List.copyOf(messageIds));
  }

  /**
   * Parse the text form: message IDs ({@link MessageId#parse}) joined by ','; "" is the empty vector.
   *
   * @param text e.g. {@code 12:5:0:-1,13:2:1:-1}, or ""
   * @return the vector
   * @throws IllegalArgumentException if the text is null, an element is not a message ID (the message quotes
   *     the text and the element), or two elements name the same partition
   */
  public static PositionVector parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("position vector is missing");
    }
    if (text.isEmpty()) {
      return EMPTY;
    }
    List<MessageId> ids = new ArrayList<>();
    for (String element : text.split(",", -1)) {
      try {
        ids.add(MessageId.parse(element));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("invalid position vector '" + text + "': " + e.getMessage(), e);
      }
    }
    return new PositionVector(ids);
  }

  /** True when the vector holds no message ID (nothing reached). */
  public boolean isEmpty() {
    return messageIds.isEmpty();
  }

  /** The number of message IDs: the partitions reached. */
  public int size() {
    return messageIds.size();
  }

  /**
   * The message ID of one partition.
   *
   * @param partition a partition index, or -1 for an unpartitioned stream
   * @return its message ID, or empty when the vector does not list that partition
   */
  public Optional<MessageId> at(int partition) {
    return messageIds.stream().filter(id -> id.partition() == partition).findFirst();
  }

  /**
   * Tell whether this vector has reached a message ID: its entry of that message ID's partition is at or after
   * it.
   *
   * @param id a message ID
   * @return false when the vector does not list that partition
   */
  public boolean reached(MessageId id) {
    return at(id.partition()).map(at -> at.compareTo(id) >= 0).orElse(false);
  }

  /**
   * Tell whether this vector has reached every message ID of another.
   *
   * @param target e.g. a backfill target
   * @return true when every message ID of {@code target} is {@link #reached(MessageId) reached} (so always for
   *     an empty target)
   */
  public boolean reached(PositionVector target) {
    return target.messageIds.stream().allMatch(this::reached);
  }

  /** The text form of each message ID, in partition order (e.g. a repeated string field, a RESP array). */
  public List<String> texts() {
    return messageIds.stream().map(MessageId::toString).toList();
  }

  /** The text form: the message IDs joined by ',' ("" when empty). */
  @Override
  public String toString() {
    return join(messageIds);
  }

  private static String join(Collection<MessageId> ids) {
    return String.join(",", ids.stream().map(MessageId::toString).toList());
  }
}
