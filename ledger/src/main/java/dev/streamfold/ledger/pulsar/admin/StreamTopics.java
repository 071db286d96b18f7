package dev.streamfold.ledger.pulsar.admin;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.pulsar.common.OffloadReadRace;
import dev.streamfold.schema.StreamColumn;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.MessageId;

/**
 * The Pulsar topics of streams, through the admin API: creation, the topic properties (columns, schema,
 * watermark delay), the partition count (cached: it is fixed at creation), the physical topics, the
 * broker's last message ID, listing and subscriptions. Part of {@link dev.streamfold.ledger.pulsar.PulsarLedger}. Thread-safe.
 */
public final class StreamTopics {
  /** Topic property holding the stream's declared columns ({@link StreamColumn#encode}). */
  public static final String COLUMNS_PROPERTY = "streamfold.columns";
  /**
   * Topic property holding the stream's schema as JSON ({@link StreamColumn#encodeSchema}: types, NOT NULL,
   * DEFAULT); absent on streams created before schemas, whose columns are {@link #COLUMNS_PROPERTY}.
   */
  public static final String SCHEMA_PROPERTY = "streamfold.schema";
  /** Topic property holding a stream's watermark delay, milliseconds (absent: 0). */
  public static final String WATERMARK_DELAY_PROPERTY = "streamfold.watermark_delay_ms";

  private final PulsarAdmin admin;
  private final TenantProvisioner tenants;
  private final Map<StreamRef, Integer> partitionCounts = new ConcurrentHashMap<>();

  /**
   * Create the stream topics.
   *
   * @param admin the admin client (not closed by this class)
   * @param tenants provisions a stream's tenant when the stream is created
   */
  public StreamTopics(PulsarAdmin admin, TenantProvisioner tenants) {
    this.admin = admin;
    this.tenants = tenants;
  }

  /**
   * Create a stream's topic (and its tenant when missing), with its columns, schema and watermark delay as
   * topic properties ({@link Ledger#createStream(StreamRef, List, long, int)}). Registering the schema in
   * Pulsar's registry is the caller's part.
   *
   * @return true when created, false when it existed with the same columns and partitions
   * @throws IllegalArgumentException if the delay is negative, the partitions out of range or the columns
   *     repeat a name
   * @throws LedgerException.StreamExists if it exists with other columns or another partition count
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public boolean create(StreamRef stream, List<StreamColumn> columns, long watermarkDelayMs, int partitions) {
    if (watermarkDelayMs < 0) {
      throw new IllegalArgumentException("watermark delay must be >= 0 ms, got " + watermarkDelayMs);
    }
    if (partitions < 0 || partitions > Ledger.MAX_PARTITIONS) {
      throw new IllegalArgumentException("partitions must be 0 or 1 (unpartitioned) or 2 to " + Ledger.MAX_PARTITIONS
          + ", got " + partitions);
    }
    int wanted = partitions == 1 ? 0 : partitions;
    StreamColumn.checkDistinct(columns);
    tenants.ensureTenant(stream.tenant());
    try {
      Optional<Map<String, String>> existing = findProperties(stream);
      if (existing.isPresent()) {
        List<StreamColumn> have = columns(existing.get());
        if (!have.equals(columns)) {
          throw new LedgerException.StreamExists(stream, describe(have), describe(columns));
        }
        int havePartitions = partitions(stream);
        if (havePartitions != wanted) {
          throw new LedgerException.StreamExists(stream, "with " + partitionsText(havePartitions) + ", not "
              + partitionsText(wanted) + " (the partition count is fixed at creation)");
        }
        return false;
      }
      Map<String, String> props = Map.of(COLUMNS_PROPERTY, StreamColumn.encode(columns),
          SCHEMA_PROPERTY, StreamColumn.encodeSchema(columns),
          WATERMARK_DELAY_PROPERTY, Long.toString(watermarkDelayMs));
      try {
        if (wanted == 0) {
          admin.topics().createNonPartitionedTopic(stream.topic(), props);
        } else {
          admin.topics().createPartitionedTopic(stream.topic(), wanted, props);
        }
      } catch (PulsarAdminException.ConflictException raced) {
        return false;
      }
      partitionCounts.put(stream, wanted);
      return true;
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot create stream " + stream, e);
    }
  }

  private static String partitionsText(int partitions) {
    return partitions == 0 ? "unpartitioned" : partitions + " partitions";
  }

  private static String describe(List<StreamColumn> columns) {
    return String.join(", ", columns.stream().map(StreamColumn::describe).toList());
  }

  /**
   * A stream's partition count: 0 when unpartitioned (Pulsar's partitioned-topic metadata; fixed at
   * creation, so cached).
   *
   * @throws PulsarAdminException if Pulsar fails
   */
  public int partitions(StreamRef stream) throws PulsarAdminException {
    Integer known = partitionCounts.get(stream);
    if (known != null) {
      return known;
    }
    int n = admin.topics().getPartitionedTopicMetadata(stream.topic()).partitions;
    partitionCounts.put(stream, n);
    return n;
  }

  /**
   * The Pulsar topics holding a stream's events: the topic itself, or each partition's topic in order.
   *
   * @throws PulsarAdminException if Pulsar fails
   */
  public List<String> physicalTopics(StreamRef stream) throws PulsarAdminException {
    int n = partitions(stream);
    if (n == 0) {
      return List.of(stream.topic());
    }
    List<String> topics = new ArrayList<>(n);
    for (int p = 0; p < n; p++) {
      topics.add(stream.partitionTopic(p));
    }
    return topics;
  }

  /**
   * A stream's topic properties.
   *
   * @return the properties (empty when the topic has none), or empty when the stream does not exist
   * @throws PulsarAdminException if Pulsar fails
   */
  public Optional<Map<String, String>> findProperties(StreamRef stream) throws PulsarAdminException {
    try {
      Map<String, String> props = admin.topics().getProperties(stream.topic());
      return Optional.of(props == null ? Map.of() : props);
    } catch (PulsarAdminException.NotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * An existing stream's topic properties.
   *
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws PulsarAdminException if Pulsar fails
   */
  public Map<String, String> properties(StreamRef stream) throws PulsarAdminException {
    return findProperties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
  }

  /** The columns a stream's topic properties declare: its schema, or the columns of a stream older than schemas. */
  public static List<StreamColumn> columns(Map<String, String> props) {
    String schema = props.get(SCHEMA_PROPERTY);
    return schema != null ? StreamColumn.decodeSchema(schema)
        : StreamColumn.decode(props.get(COLUMNS_PROPERTY));
  }

  /**
   * A stream's declared columns, in one admin call ({@link Ledger#columns}).
   *
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public List<StreamColumn> columns(StreamRef stream) {
    try {
      return columns(properties(stream));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot describe stream " + stream, e);
    }
  }

  /**
   * The broker's last message ID of one topic (admin). The broker reads the last entry for it, which races
   * with the trimmer closing an offloaded segment's read handle: {@link OffloadReadRace} retries that.
   *
   * @throws PulsarAdminException if Pulsar fails
   * @throws LedgerException.Unavailable if interrupted
   */
  public MessageId lastMessageId(String topic) throws PulsarAdminException {
    try {
      return OffloadReadRace.call(() -> admin.topics().getLastMessageId(topic));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LedgerException.Unavailable("interrupted while asking for the last message ID of " + topic, e);
    }
  }

  /**
   * List a tenant's streams ({@link Ledger#listStreams}).
   *
   * @return the streams, sorted by name; empty when the tenant does not exist
   * @throws IllegalArgumentException if the tenant name is malformed
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public List<StreamRef> list(String tenant) {
    StreamRef.checkTenant(tenant);
    try {
      List<String> topics = new ArrayList<>(admin.topics().getList(tenant + "/" + StreamRef.LEDGER_NAMESPACE));
      topics.addAll(admin.topics().getPartitionedTopicList(tenant + "/" + StreamRef.LEDGER_NAMESPACE));
      String prefix = "persistent://" + tenant + "/" + StreamRef.LEDGER_NAMESPACE + "/";
      List<StreamRef> streams = new ArrayList<>();
      for (String topic : topics) {
        if (topic.startsWith(prefix)) {
          String name = topic.substring(prefix.length());
          if (!name.startsWith("__") && !name.contains("-partition-")) {
            streams.add(new StreamRef(tenant, name));
          }
        }
      }
      streams = new ArrayList<>(new LinkedHashSet<>(streams));
      streams.sort((a, b) -> a.stream().compareTo(b.stream()));
      return streams;
    } catch (PulsarAdminException.NotFoundException e) {
      return List.of();
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot list streams of tenant '" + tenant + "'", e);
    }
  }

  /**
   * Delete a subscription of a stream, if it exists ({@link Ledger#deleteSubscription}).
   *
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public void deleteSubscription(StreamRef stream, String subscription) {
    try {
      admin.topics().deleteSubscription(stream.topic(), subscription, true);
    } catch (PulsarAdminException.NotFoundException gone) {
      // nothing to delete
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot delete subscription " + subscription + " of " + stream, e);
    }
  }
}
