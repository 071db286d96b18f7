package dev.streamfold.ledger;

import java.util.List;

/**
 * Where a stream's events are stored.
 *
 * @param stream the stream
 * @param segments its segments, oldest first; the last one is open for appends
 * @param localBytes bytes still held by BookKeeper (segments not yet offloaded, or offloaded but not
 *     yet deleted locally)
 * @param offloadedBytes bytes of segments offloaded to tiered storage
 */
public record StreamStorage(StreamRef stream, List<LedgerSegment> segments, long localBytes, long offloadedBytes) {}
