package dev.streamfold.transforms.source;

import dev.streamfold.core.MessageId;

/**
 * One ledger event as the Flink job reads it. A Flink POJO (public fields, no-argument constructor):
 * serialized by Flink's PojoSerializer, not Kryo.
 */
public class SourceEvent {
  /** Message ID text {@code ledgerId:entryId:partition:batchIndex}. */
  public String messageId;
  /** Event key. */
  public String key;
  /** Event time, epoch milliseconds. */
  public long eventTimeMs;
  /**
   * When the ledger acknowledged the event (Pulsar's publish time), epoch milliseconds; 0 when the source did not
   * set it. A training set's {@code --known-at} cut leaves out events acknowledged after the label's time.
   */
  public long publishTimeMs;
  /** Pulsar sequence id given by the appender. */
  public long sequenceId;
  /**
   * Payload JSON object text; null when the source left the payload as UTF-8 bytes
   * ({@link #payloadBytes}): read it with {@link #payloadText()}.
   */
  public String payload;
  /**
   * The payload's UTF-8 bytes as read from the ledger, when the source keeps them undecoded (SQL view jobs
   * and replays, whose {@link PayloadParser} scans the bytes; see {@link LedgerEventDeserializer}); else
   * null and {@link #payload} holds the text.
   */
  public byte[] payloadBytes;
  /** Event type, "" when none. */
  public String type = "";
  /**
   * The partition of {@link #messageId} (-1 for a stream without partitions), or {@link #UNKNOWN_PARTITION}
   * when the source did not set it: read it with {@link #partitionIndex()}.
   */
  public int partition = UNKNOWN_PARTITION;

  /**
   * The stream the event belongs to, when the source reads several streams in the tenant clock's order
   * ({@link ClockedLedgerSource}); null from a source of one stream.
   */
  public String stream;
  /**
   * The tick that first covers the event, when the source reads in the tenant clock's order
   * ({@link ClockedLedgerSource}); 0 from a source of one stream.
   */
  public long tick;
  /**
   * True for the marker a {@link ClockedLedgerSource} emits after the last event of each tick it reads (also of a
   * tick with no events of the streams read): not an event (no message ID, stream or payload), it tells the
   * operators after the source that {@link #tick} was read whole.
   */
  public boolean endOfTick;

  /** {@link #partition} not set: {@link #partitionIndex()} reads it from the message ID text. */
  public static final int UNKNOWN_PARTITION = Integer.MIN_VALUE;

  /**
   * {@link #messageId} parsed, when known: set by the source, or by {@link #position()} on first use.
   * Transient, so not a POJO field: a serialized copy parses the text again.
   */
  private transient MessageId position;

  public SourceEvent() {}

  public SourceEvent(String messageId, String key, long eventTimeMs, long sequenceId, String payload) {
    this.messageId = messageId;
    this.key = key;
    this.eventTimeMs = eventTimeMs;
    this.sequenceId = sequenceId;
    this.payload = payload;
  }

  public SourceEvent(String messageId, String key, long eventTimeMs, long sequenceId, String payload, String type) {
    this(messageId, key, eventTimeMs, sequenceId, payload);
    this.type = type == null ? "" : type;
  }

  /**
   * The marker that tick {@code tick} was read whole ({@link #endOfTick}).
   *
   * @param tick the tick
   * @return the marker
   */
  public static SourceEvent endOfTick(long tick) {
    SourceEvent marker = new SourceEvent();
    marker.tick = tick;
    marker.endOfTick = true;
    return marker;
  }

  /**
   * The partition of this event's message ID: {@link #partition} when the source set it, else the third
   * field of {@link #messageId} ({@code ledgerId:entryId:partition:batchIndex}), remembered.
   *
   * @return the partition index, -1 for a stream without partitions
   * @throws NumberFormatException if neither is set and the message ID text is malformed
   */
  public int partitionIndex() {
    if (partition == UNKNOWN_PARTITION) {
      int end = messageId.lastIndexOf(':');
      int start = messageId.lastIndexOf(':', end - 1);
      partition = Integer.parseInt(messageId, start + 1, end, 10);
    }
    return partition;
  }

  /**
   * This event's position in the ledger: {@link #messageId} parsed, once (the replay bound, the merge of
   * partitions and the restore check compare it for every event; parsing the text each time was 12 % of a
   * replay's source task).
   *
   * @return the message ID
   * @throws IllegalArgumentException if the source did not set it and {@link #messageId} is malformed
   */
  public MessageId position() {
    if (position == null) {
      position = MessageId.parse(messageId);
    }
    return position;
  }

  /**
   * Set this event's message ID from its parsed form: {@link #messageId} (its text), {@link #partition} and
   * {@link #position()}.
   *
   * @param id the message ID
   */
  public void position(MessageId id) {
    this.position = id;
    this.messageId = id.toString();
    this.partition = id.partition();
  }

  /**
   * The payload text: {@link #payload}, or {@link #payloadBytes} decoded as UTF-8 (malformed bytes become
   * U+FFFD, as {@code new String(bytes, UTF_8)} does).
   *
   * @return the text, "" for neither
   */
  public String payloadText() {
    if (payload != null) {
      return payload;
    }
    return payloadBytes == null ? "" : new String(payloadBytes, java.nio.charset.StandardCharsets.UTF_8);
  }
}
