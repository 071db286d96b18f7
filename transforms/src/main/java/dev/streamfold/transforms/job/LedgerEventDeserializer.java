package dev.streamfold.transforms.job;

import dev.streamfold.ledger.pulsar.PulsarMessageIds;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.pulsar.source.reader.deserializer.PulsarDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.pulsar.client.api.Message;

/** Turns a Pulsar message of a stream into a {@link SourceEvent} (the Flink source adapter). */
public final class LedgerEventDeserializer implements PulsarDeserializationSchema<SourceEvent> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(Message<byte[]> message, Collector<SourceEvent> out) {
    byte[] value = message.getValue();
    out.collect(new SourceEvent(
        // a partition's own topic reports partition -1 in its message IDs; the topic name tells it
        PulsarMessageIds.toText(message.getMessageId(), PulsarMessageIds.partitionOfTopic(message.getTopicName()))
            .toString(),
        message.hasKey() ? message.getKey() : "",
        message.getEventTime() > 0 ? message.getEventTime() : message.getPublishTime(),
        message.getSequenceId(),
        value == null ? "" : new String(value, StandardCharsets.UTF_8),
        message.getProperty(dev.streamfold.ledger.EventEnvelope.TYPE_PROPERTY)));
  }

  @Override
  public TypeInformation<SourceEvent> getProducedType() {
    return TypeInformation.of(SourceEvent.class);
  }
}
