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
  /** Payload JSON object text. */
  public String payload;
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
}
