package dev.streamfold.ledger;

/**
 * One segment of a stream: a BookKeeper ledger of its Pulsar topic.
 *
 * @param ledgerId BookKeeper ledger id (the first part of the message IDs it holds)
 * @param entries entries in the segment (a batched entry holds several events); for the open segment,
 *     the entries written so far
 * @param sizeBytes bytes of the segment's entries
 * @param offloaded true once a copy is complete in tiered storage (S3)
 * @param localDeleted true once the local (BookKeeper) copy of an offloaded segment was deleted, after
 *     the namespace's offload deletion lag; reads then come from S3
 * @param location where reads are served from: {@code bookkeeper}, or the offload driver and bucket,
 *     e.g. {@code S3 bucket streamfold-ledger}
 * @param partition the partition whose topic the segment belongs to (0..N-1), or -1 for an unpartitioned
 *     stream (as in message IDs)
 * @param open true for the segment the broker is writing (the last of its topic): it is not offloaded
 *     until it rolls over
 */
public record LedgerSegment(long ledgerId, long entries, long sizeBytes, boolean offloaded, boolean localDeleted,
    String location, int partition, boolean open) {}
