package dev.streamfold.ledger;

/**
 * An event read back from the ledger.
 *
 * @param messageId its position
 * @param event the event as appended
 */
public record StoredEvent(MessageIdText messageId, EventEnvelope event) {}
