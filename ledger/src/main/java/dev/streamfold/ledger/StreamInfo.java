package dev.streamfold.ledger;

import java.util.List;
import java.util.Optional;

/**
 * What the ledger knows about a stream.
 *
 * @param ref the stream
 * @param columns declared payload columns (empty when none were declared)
 * @param latest the latest event's message ID, empty when the stream is empty
 * @param eventCount events appended to the stream (the latest event's sequence id + 1; exact while
 *     Streamfold's appender is the stream's only writer)
 * @param watermarkDelayMs bounded out-of-orderness of the stream's event times, milliseconds (0 unless
 *     set when the stream was created)
 */
public record StreamInfo(StreamRef ref, List<StreamColumn> columns, Optional<MessageIdText> latest,
    long eventCount, long watermarkDelayMs) {}
