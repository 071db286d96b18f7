package dev.streamfold.ledger;

import dev.streamfold.core.StreamRef;
import dev.streamfold.schema.StreamColumn;
import java.util.List;

/**
 * The tenants and streams of the ledger: provisioning, creation, schema changes, listing and description.
 * Part of {@link Ledger}. Thread-safe.
 */
public interface StreamAdmin {

  /**
   * Provision a tenant: the Pulsar tenant and its namespaces {@code ledger} and {@code system}, with
   * infinite retention and broker deduplication on. Does nothing for parts that exist.
   *
   * @param tenant tenant name
   * @throws IllegalArgumentException if the name is malformed
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  void ensureTenant(String tenant);

  /**
   * Create a stream (and its tenant when missing).
   *
   * @param stream the stream
   * @param columns declared payload columns (may be empty)
   * @return true when created, false when it existed with the same columns
   * @throws LedgerException.StreamExists if it exists with other columns
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  default boolean createStream(StreamRef stream, List<StreamColumn> columns) {
    return createStream(stream, columns, 0);
  }

  /**
   * Create a stream (and its tenant when missing) with a watermark delay.
   *
   * @param stream the stream
   * @param columns declared payload columns (may be empty)
   * @param watermarkDelayMs bounded out-of-orderness of its event times, milliseconds, >= 0: event-time
   *     windows over the stream close once an event {@code watermarkDelayMs} later than the window end has
   *     been read (see the README, "Event-time windows"); fixed when the stream is created
   * @return true when created, false when it existed with the same columns (its delay is kept)
   * @throws IllegalArgumentException if the delay is negative
   * @throws LedgerException.StreamExists if it exists with other columns
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  default boolean createStream(StreamRef stream, List<StreamColumn> columns, long watermarkDelayMs) {
    return createStream(stream, columns, watermarkDelayMs, 0);
  }

  /** Most partitions a stream may have. */
  int MAX_PARTITIONS = 64;

  /**
   * Create a stream (and its tenant when missing), partitioned or not.
   *
   * @param stream the stream
   * @param columns declared payload columns (may be empty)
   * @param watermarkDelayMs bounded out-of-orderness of its event times, milliseconds, >= 0 (see above)
   * @param partitions 0 or 1 for an unpartitioned stream (one Pulsar topic); 2 to {@link #MAX_PARTITIONS}
   *     for a Pulsar partitioned topic: an event goes to partition {@code murmur3_32(key) mod partitions}
   *     (Pulsar's {@code Murmur3_32Hash} key routing), so events with the same key are in one partition, in
   *     append order; events without a key are spread round-robin. Fixed when the stream is created.
   * @return true when created, false when it existed with the same columns and partitions
   * @throws IllegalArgumentException if the delay is negative or the partitions out of range
   * @throws LedgerException.StreamExists if it exists with other columns or another partition count
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  boolean createStream(StreamRef stream, List<StreamColumn> columns, long watermarkDelayMs, int partitions);

  /**
   * Change a stream's schema (its declared columns), checked for compatibility with every event already
   * stored: a new column must be optional or have a DEFAULT (old events are read with it); a column may
   * not change its type, become NOT NULL without a DEFAULT, change its DEFAULT (replays of old events must
   * not change), nor be removed while it is NOT NULL without a DEFAULT. The schema is also registered as
   * the next version of the topic's schema in Pulsar's registry (JSON type; Pulsar's FULL compatibility
   * check must pass too). Appends after it are validated against the new columns.
   *
   * @param stream the stream
   * @param columns the complete new list of columns
   * @return the stream as described after the change
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.IncompatibleSchema naming the first incompatible column and why
   * @throws IllegalArgumentException if the columns are malformed or repeat a name
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  StreamInfo updateSchema(StreamRef stream, List<StreamColumn> columns);

  /**
   * List a tenant's streams.
   *
   * @param tenant tenant name
   * @return the streams, sorted by name; empty when the tenant does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  List<StreamRef> listStreams(String tenant);

  /**
   * Describe a stream.
   *
   * @param stream the stream
   * @return its columns, latest message ID and event count
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  StreamInfo describe(StreamRef stream);

  /**
   * The declared columns of a stream, without the rest of {@link #describe} (which reads each partition's
   * latest event). The default describes the stream.
   *
   * @param stream the stream
   * @return its columns in declaration order (empty for a stream without declared columns)
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  default List<StreamColumn> columns(StreamRef stream) {
    return describe(stream).columns();
  }

  /**
   * List the tenants that have a {@code system} namespace (tenants provisioned by Streamfold).
   *
   * @return tenant names, sorted
   */
  List<String> tenants();

  /**
   * Delete a subscription of a stream (a removed view's source cursor), if it exists.
   *
   * @param stream the stream
   * @param subscription subscription name
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  void deleteSubscription(StreamRef stream, String subscription);
}
