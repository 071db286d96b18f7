package dev.streamfold.transforms.source;

import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.pulsar.source.reader.deserializer.PulsarDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.pulsar.client.api.Message;

/** Turns a Pulsar message of a stream into a {@link SourceEvent} (the Flink source adapter). */
public final class LedgerEventDeserializer implements PulsarDeserializationSchema<SourceEvent> {
  private static final long serialVersionUID = 2L;

  private final boolean payloadBytes;

  /** A deserializer that decodes each payload to text ({@link SourceEvent#payload}). */
  public LedgerEventDeserializer() {
    this(false);
  }

  /**
   * @param payloadBytes true to leave each payload as its UTF-8 bytes ({@link SourceEvent#payloadBytes},
   *     payload text null): for jobs whose only reader of the payload is {@link PayloadParser#toRowData},
   *     which scans the bytes without decoding them to a String first; false to decode it to text
   */
  public LedgerEventDeserializer(boolean payloadBytes) {
    this.payloadBytes = payloadBytes;
  }

  @Override
  public void deserialize(Message<byte[]> message, Collector<SourceEvent> out) {
    // getData(): the message's own payload array (the client copied it out of the batch already), where
    // getValue() wraps it in a ByteBuffer and copies it again (10 % of the source task in a backfill profile).
    byte[] value = message.getData();
    int partition = partitionOfTopic(message.getTopicName());
    if (payloadBytes) {
      SourceEvent event = new SourceEvent(
          null,
          message.hasKey() ? message.getKey() : "",
          message.getEventTime() > 0 ? message.getEventTime() : message.getPublishTime(),
          message.getSequenceId(), null, message.getProperty(dev.streamfold.schema.EventEnvelope.TYPE_PROPERTY));
      event.payloadBytes = value == null ? new byte[0] : value;
      event.publishTimeMs = message.getPublishTime();
      event.position(PulsarMessageIds.toText(message.getMessageId(), partition));
      out.collect(event);
      return;
    }
    SourceEvent event = new SourceEvent(
        null,
        message.hasKey() ? message.getKey() : "",
        message.getEventTime() > 0 ? message.getEventTime() : message.getPublishTime(),
        message.getSequenceId(),
        value == null ? "" : new String(value, StandardCharsets.UTF_8),
        message.getProperty(dev.streamfold.schema.EventEnvelope.TYPE_PROPERTY));
    event.publishTimeMs = message.getPublishTime();
    // a partition's own topic reports partition -1 in its message IDs; the topic name tells it
    event.position(PulsarMessageIds.toText(message.getMessageId(), partition));
    out.collect(event);
  }

  /** The topic name of the previous message and its partition (a split reads one topic: one lookup per split). */
  private transient String lastTopic;
  private transient int lastPartition;

  private int partitionOfTopic(String topic) {
    if (topic == null || !topic.equals(lastTopic)) {
      lastPartition = PulsarMessageIds.partitionOfTopic(topic);
      lastTopic = topic;
    }
    return lastPartition;
  }

  @Override
  public TypeInformation<SourceEvent> getProducedType() {
    return TypeInformation.of(SourceEvent.class);
  }
}
