package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;
import dev.streamfold.schema.EventEnvelope;

/**
 * An event read back from the ledger.
 *
 * @param messageId its position
 * @param event the event as appended
 * @param sequence its ordinal in the stream: 0 for the first event (the appender's Pulsar sequence id;
 *     exact while Streamfold's appender is the stream's only writer)
 */
public record StoredEvent(MessageId messageId, EventEnvelope event, long sequence) {}
