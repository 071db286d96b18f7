package dev.streamfold.ledger;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The immutable ledger: tenants, their streams on Pulsar, and appends. Implemented by
 * {@link dev.streamfold.ledger.pulsar.PulsarLedger}. Thread-safe.
 */
public interface Ledger extends AutoCloseable {

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
   * Append events to a stream, in order, after checking each with {@link EventValidator}. Nothing is
   * appended when any event is invalid. An event whose idempotency key the stream already holds is not
   * appended again (also across restarts): it is answered with the first append's message ID, and the
   * other events of its request are appended as usual. A key the stream holds for another event (its key,
   * type, event time, payload or headers differ) fails the whole request instead, as does one key used for
   * two different events of one request.
   *
   * @param stream the stream
   * @param events the events, in order
   * @return a future of one outcome per event, in event order, completed once every event is durable; it
   *     fails with {@link LedgerException.InvalidEvent} (field {@code idempotency_key}) when a key is reused for
   *     another event, nothing of the request appended
   * @throws LedgerException.InvalidEvent if an event is malformed (thrown, not in the future)
   * @throws LedgerException.StreamNotFound if the stream does not exist (thrown)
   */
  CompletableFuture<List<Appended>> append(StreamRef stream, List<EventEnvelope> events);

  /**
   * Open a keyed system table of a tenant (a compacted topic in its {@code system} namespace), e.g. the
   * transformation catalog.
   *
   * @param tenant tenant name
   * @param table table name, e.g. {@code transforms}
   * @return the table
   */
  SystemTable systemTable(String tenant, String table);

  /**
   * Store an artifact (the jar of a Java transformation) in the tenant's ledger, content-addressed and
   * kept forever like every other ledger topic (infinite retention, offloaded to S3 with the rest):
   * topic {@code persistent://<tenant>/system/artifact-<sha256>}, in parts of at most
   * {@link #ARTIFACT_PART_BYTES} (below Pulsar's default 5 MiB {@code maxMessageSize}). Storing the same
   * bytes again stores nothing.
   *
   * @param tenant tenant name
   * @param content the bytes (at most {@link #MAX_ARTIFACT_BYTES})
   * @return the SHA-256 of the bytes, lower-case hex (64 characters): the artifact's name
   * @throws IllegalArgumentException if the content is empty or larger than {@link #MAX_ARTIFACT_BYTES}
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  String putArtifact(String tenant, byte[] content);

  /**
   * Read an artifact stored with {@link #putArtifact}.
   *
   * @param tenant tenant name
   * @param sha256 the artifact's SHA-256, lower-case hex
   * @return its bytes, checked against the SHA-256
   * @throws LedgerException.ArtifactNotFound if the tenant has no complete artifact with that SHA-256
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  byte[] artifact(String tenant, String sha256);

  /** Part size of stored artifacts: 1 MiB. */
  int ARTIFACT_PART_BYTES = 1 << 20;
  /** Largest artifact: 256 MiB. */
  int MAX_ARTIFACT_BYTES = 256 << 20;

  /**
   * Open a keyed system table of the cluster rather than of one tenant (e.g. the tenant registry): a
   * compacted topic in the namespace {@code system} of the Pulsar tenant
   * {@value dev.streamfold.ledger.pulsar.PulsarLedger#CLUSTER_TENANT}, a name no Streamfold tenant can have.
   *
   * @param table table name, e.g. {@code tenants}
   * @return the table
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  SystemTable clusterTable(String table);

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

  /**
   * Read events of a stream in ledger order, wherever they are stored (BookKeeper or tiered storage). On
   * a partitioned stream, reading from the earliest event merges the partitions by sequence id (the order
   * the appender accepted the events); reading after a message ID reads that message ID's partition.
   *
   * @param stream the stream
   * @param after read after this message ID (exclusive); empty to read from the earliest event
   * @param maxEvents most events to return, >= 1
   * @param timeoutMs longest wait for the next event, milliseconds; reaching the latest event returns
   *     what was read at once
   * @return up to {@code maxEvents} events; empty when none follow {@code after}
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if an event that exists cannot be read within the timeout (e.g.
   *     its segment was offloaded and the S3 endpoint is down): the message names the segment and where
   *     it is stored
   */
  java.util.List<StoredEvent> read(StreamRef stream, java.util.Optional<MessageIdText> after, int maxEvents,
      long timeoutMs);

  /**
   * Find the event at an exact message ID (batch index included).
   *
   * @param stream the stream
   * @param id the message ID
   * @param timeoutMs longest wait for the event, milliseconds
   * @return the event, or empty when the stream holds no event at exactly {@code id}
   * @throws IllegalArgumentException if {@code id} has batch index -1 (an entry that is not batched) but names
   *     a batched entry, which holds no event at -1; the message says which batch indexes the entry holds
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if Pulsar fails, or the event's segment cannot be read within
   *     the timeout (the message names the segment and where it is stored)
   */
  java.util.Optional<StoredEvent> locate(StreamRef stream, MessageIdText id, long timeoutMs);

  /** The Pulsar service URL, for Flink sources. */
  String serviceUrl();

  /** The Pulsar admin URL, for Flink sources. */
  String adminUrl();

  @Override
  void close();
}
