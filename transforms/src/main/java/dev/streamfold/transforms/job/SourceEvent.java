package dev.streamfold.transforms.job;

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
