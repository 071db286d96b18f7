package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;

/**
 * The outcome of one appended event.
 *
 * @param messageId its message ID; for a repeat, the message ID of the first append of its idempotency key
 * @param repeat true when the event's idempotency key was already in the stream, so nothing was appended
 */
public record Appended(MessageId messageId, boolean repeat) {}
