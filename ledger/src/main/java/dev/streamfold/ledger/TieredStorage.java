package dev.streamfold.ledger;

import dev.streamfold.core.StreamRef;

/**
 * Tiered storage of the ledger's streams: offload policies, where segments are stored, and offloads.
 * Part of {@link Ledger}. Thread-safe.
 */
public interface TieredStorage {

  /**
   * Set a tenant's tiered-storage policy on its {@code ledger} namespace: closed segments are offloaded
   * automatically once the local bytes of a stream exceed {@code thresholdBytes}, and their local copies
   * are deleted {@code deletionLagMs} after the offload. Retention stays infinite: nothing is trimmed.
   *
   * @param tenant tenant name
   * @param thresholdBytes local bytes per stream before automatic offload; -1 disables automatic offload,
   *     0 offloads every closed segment
   * @param deletionLagMs delay between an offload and the deletion of the local copy, milliseconds, >= 0
   * @throws IllegalArgumentException if a value is out of range
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  void setOffloadPolicy(String tenant, long thresholdBytes, long deletionLagMs);

  /**
   * Describe where a stream's events are stored: segments, sizes, which are offloaded and deleted locally.
   *
   * @param stream the stream
   * @return its storage
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  StreamStorage storage(StreamRef stream);

  /**
   * Start offloading every closed segment of a stream (the open one cannot be offloaded). Returns at once.
   *
   * @param stream the stream
   * @return the status right after the trigger
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails or an offload is already running
   */
  OffloadStatus offload(StreamRef stream);

  /**
   * Read the status of a stream's offload.
   *
   * @param stream the stream
   * @return the status
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  OffloadStatus offloadStatus(StreamRef stream);
}
