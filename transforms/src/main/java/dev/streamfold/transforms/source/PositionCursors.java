package dev.streamfold.transforms.source;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.connector.pulsar.source.enumerator.cursor.CursorPosition;
import org.apache.flink.connector.pulsar.source.enumerator.cursor.StartCursor;
import org.apache.flink.connector.pulsar.source.enumerator.cursor.StopCursor;
import org.apache.pulsar.client.api.Message;

/**
 * Pulsar source cursors for a position vector: one message ID per partition of a stream. The connector
 * asks a {@link StartCursor} for each partition's position ({@code position(topic, partitionId)}), and
 * consults a split's {@link StopCursor} on every message of that split, so both can differ per
 * partition (the connector's own message-ID cursors apply one message ID to every partition).
 */
public final class PositionCursors {
  private PositionCursors() {}

  /**
   * Where the source starts: earliest, or the entry of each partition's committed message ID, inclusive.
   * Pulsar positions a subscription per entry, so a batched entry is re-read from its first message; the
   * {@link dev.streamfold.transforms.job.PositionTracker} drops the messages it already applied. Partitions without a position start at
   * the earliest event.
   *
   * @param position a message ID per partition (a view's committed position); empty for earliest
   * @return the cursor
   */
  public static StartCursor start(PositionVector position) {
    if (position == null || position.isEmpty()) {
      return StartCursor.earliest();
    }
    TreeMap<Integer, StartCursor> byPartition = new TreeMap<>();
    for (MessageId at : position.messageIds()) {
      byPartition.put(at.partition(), StartCursor.fromMessageId(PulsarMessageIds.toPulsar(
          new MessageId(at.ledgerId(), at.entryId(), at.partition(), -1)), true));
    }
    return new PerPartitionStart(byPartition);
  }

  /**
   * A stop after each partition's message ID (inclusive). A partition the vector does not list must not be
   * read at all (the source is given only the listed partitions' topics): its split would never end.
   *
   * @param readThrough the last message ID to read, per partition
   * @return the cursor
   */
  public static StopCursor stopAfter(List<MessageId> readThrough) {
    if (readThrough.size() == 1 && readThrough.get(0).partition() < 0) {
      return StopCursor.afterMessageId(PulsarMessageIds.toPulsar(readThrough.get(0)));
    }
    TreeMap<Integer, String> byPartition = new TreeMap<>();
    readThrough.forEach(id -> byPartition.put(id.partition(), id.toString()));
    return new PerPartitionStop(byPartition);
  }

  private record PerPartitionStart(TreeMap<Integer, StartCursor> byPartition) implements StartCursor {
    private static final long serialVersionUID = 1L;

    @Override
    public CursorPosition position(String topic, int partitionId) {
      StartCursor cursor = byPartition.get(partitionId);
      return cursor == null ? StartCursor.earliest().position(topic, partitionId) : cursor.position(topic, partitionId);
    }
  }

  /** Message ID text per partition (the cursor is Java-serialized into each split). */
  private record PerPartitionStop(TreeMap<Integer, String> byPartition) implements StopCursor {
    private static final long serialVersionUID = 1L;

    @Override
    public StopCondition shouldStop(Message<?> message) {
      int partition = PulsarMessageIds.partitionOfTopic(message.getTopicName());
      String last = byPartition.get(partition);
      if (last == null) {
        return StopCondition.TERMINATE;
      }
      int c = PulsarMessageIds.toText(message.getMessageId(), partition).compareTo(MessageId.parse(last));
      return c < 0 ? StopCondition.CONTINUE : c == 0 ? StopCondition.EXACTLY : StopCondition.TERMINATE;
    }
  }
}
