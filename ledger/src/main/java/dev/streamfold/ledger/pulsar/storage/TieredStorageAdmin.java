package dev.streamfold.ledger.pulsar.storage;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.LedgerSegment;
import dev.streamfold.ledger.OffloadStatus;
import dev.streamfold.ledger.StreamStorage;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.ledger.pulsar.admin.TenantProvisioner;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.common.policies.data.RetentionPolicies;

/**
 * Tiered storage of streams, through the admin API: a tenant's offload policy, where each segment of a stream
 * is stored (BookKeeper, tiered storage, or both) and offloads on demand. Part of {@link PulsarLedger}.
 * Thread-safe.
 */
public final class TieredStorageAdmin {
  private final PulsarAdmin admin;
  private final TenantProvisioner tenants;
  private final StreamTopics topics;
  private final BookieAdmin bookies;

  /**
   * Create the tiered-storage admin.
   *
   * @param admin the admin client (not closed by this class)
   * @param tenants provisions a tenant when its offload policy is set
   * @param topics the stream topics
   * @param bookies asked which segments the bookies still hold
   */
  public TieredStorageAdmin(PulsarAdmin admin, TenantProvisioner tenants, StreamTopics topics, BookieAdmin bookies) {
    this.admin = admin;
    this.tenants = tenants;
    this.topics = topics;
    this.bookies = bookies;
  }

  /**
   * Set a tenant's tiered-storage policy on its {@code ledger} namespace ({@link Ledger#setOffloadPolicy}).
   *
   * @throws IllegalArgumentException if a value is out of range
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public void setOffloadPolicy(String tenant, long thresholdBytes, long deletionLagMs) {
    if (thresholdBytes < -1) {
      throw new IllegalArgumentException("offload threshold must be >= -1 bytes, got " + thresholdBytes);
    }
    if (deletionLagMs < 0) {
      throw new IllegalArgumentException("offload deletion lag must be >= 0 ms, got " + deletionLagMs);
    }
    tenants.ensureTenant(tenant);
    String namespace = tenant + "/" + StreamRef.LEDGER_NAMESPACE;
    try {
      admin.namespaces().setOffloadThreshold(namespace, thresholdBytes);
      admin.namespaces().setOffloadDeleteLag(namespace, deletionLagMs, TimeUnit.MILLISECONDS);
      // Retention stays infinite whatever the offload policy (offloaded data must never be trimmed).
      admin.namespaces().setRetention(namespace, new RetentionPolicies(-1, -1));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot set the offload policy of tenant '" + tenant + "'", e);
    }
  }

  /**
   * Describe where a stream's events are stored ({@link Ledger#storage}): the segments of all its topics.
   *
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public StreamStorage storage(StreamRef stream) {
    try {
      topics.properties(stream);
      List<LedgerSegment> segments = new ArrayList<>();
      long local = 0;
      long offloaded = 0;
      for (String topic : topics.physicalTopics(stream)) {
        StreamStorage one = storage(stream, topic);
        segments.addAll(one.segments());
        local += one.localBytes();
        offloaded += one.offloadedBytes();
      }
      return new StreamStorage(stream, segments, local, offloaded);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the storage of stream " + stream, e);
    }
  }

  /**
   * The storage of one of a stream's topics (the stream's own, or one partition's).
   *
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public StreamStorage storage(StreamRef stream, String topic) {
    try {
      var stats = admin.topics().getInternalStats(topic);
      Map<Long, JsonNode> info = internalInfoByLedger(stream, topic);
      Optional<Set<Long>> onBookies = bookies.ledgers();
      String offloadTarget = offloadTarget(stream);
      List<LedgerSegment> segments = new ArrayList<>();
      long local = 0;
      long offloaded = 0;
      for (int i = 0; i < stats.ledgers.size(); i++) {
        var ledger = stats.ledgers.get(i);
        if (i == stats.ledgers.size() - 1 && !ledger.offloaded && ledger.entries == 0) {
          // the open segment: its counts are kept as the topic's current-ledger figures
          ledger.entries = stats.currentLedgerEntries;
          ledger.size = stats.currentLedgerSize;
        }
        JsonNode detail = info.get(ledger.ledgerId);
        JsonNode context = detail == null ? null : detail.path("offloadContext");
        boolean deleted = ledger.offloaded && (onBookies.isPresent()
            ? !onBookies.get().contains(ledger.ledgerId)
            : context != null && context.path("bookkeeperDeleted").asBoolean(false));
        String location = "bookkeeper";
        if (ledger.offloaded) {
          location = offloadTarget;
          offloaded += ledger.size;
        }
        if (!ledger.offloaded || !deleted) {
          local += ledger.size;
        }
        segments.add(new LedgerSegment(ledger.ledgerId, ledger.entries, ledger.size, ledger.offloaded, deleted, location,
            PulsarMessageIds.partitionOfTopic(topic), i == stats.ledgers.size() - 1 && !ledger.offloaded));
      }
      return new StreamStorage(stream, segments, local, offloaded);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the storage of stream " + stream, e);
    }
  }

  /** Where the topic's segments are offloaded (the applied offload policy): e.g. "S3 bucket streamfold-ledger". */
  private String offloadTarget(StreamRef stream) {
    try {
      var policies = admin.topics().getOffloadPolicies(stream.topic(), true);
      if (policies != null && policies.getManagedLedgerOffloadDriver() != null) {
        String bucket = policies.getManagedLedgerOffloadBucket();
        return policies.getManagedLedgerOffloadDriver() + (bucket == null ? "" : " bucket " + bucket);
      }
    } catch (PulsarAdminException | RuntimeException e) {
      // fall through
    }
    return "tiered storage";
  }

  /** The managed ledger's own description of each segment (offload context included), by ledger id. */
  private Map<Long, JsonNode> internalInfoByLedger(StreamRef stream, String topic) throws PulsarAdminException {
    Map<Long, JsonNode> byLedger = new HashMap<>();
    try {
      JsonNode root = new ObjectMapper().readTree(admin.topics().getInternalInfo(topic));
      for (JsonNode ledger : root.path("ledgers")) {
        byLedger.put(ledger.path("ledgerId").asLong(), ledger);
      }
    } catch (JsonProcessingException e) {
      throw new LedgerException.Unavailable("unreadable internal info of " + stream, e);
    }
    return byLedger;
  }

  /**
   * Start offloading every closed segment of a stream ({@link Ledger#offload}).
   *
   * @return the status right after the trigger
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails or an offload is already running
   */
  public OffloadStatus offload(StreamRef stream) {
    try {
      topics.properties(stream);
      for (String topic : topics.physicalTopics(stream)) {
        // Pulsar offloads the segments before the one holding the given position (ManagedLedgerImpl.
        // asyncOffloadPrefix). The latest message's position missed a segment closed right after its last add
        // ("closing ledger for being full"): the latest message was in a closed segment that stayed local.
        // The first position of the open segment (the last one of the topic's internal stats; valid also
        // while it is empty) covers every closed segment.
        var ledgers = admin.topics().getInternalStats(topic).ledgers;
        MessageId upTo = ledgers == null || ledgers.isEmpty() ? topics.lastMessageId(topic)
            : new MessageIdImpl(ledgers.get(ledgers.size() - 1).ledgerId, 0, -1);
        admin.topics().triggerOffload(topic, upTo);
      }
      return offloadStatus(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot offload stream " + stream, e);
    }
  }

  /**
   * The status of a stream's offload. For a partitioned stream: RUNNING while any partition's runs, else
   * ERROR when any failed (errors joined, each naming its partition), else the first partition's; the
   * first unoffloaded message is the first partition's that has one.
   *
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public OffloadStatus offloadStatus(StreamRef stream) {
    try {
      List<String> physical = topics.physicalTopics(stream);
      String state = null;
      String firstText = "";
      List<String> errors = new ArrayList<>();
      for (int p = 0; p < physical.size(); p++) {
        var status = admin.topics().offloadStatus(physical.get(p));
        String name = status.getStatus().name();
        if (state == null || name.equals("RUNNING") || (name.equals("ERROR") && !state.equals("RUNNING"))) {
          state = name;
        }
        MessageId first = status.getFirstUnoffloadedMessage();
        if (firstText.isEmpty() && first instanceof MessageIdAdv) {
          firstText = PulsarMessageIds.toText(first, physical.size() == 1 ? -1 : p).toString();
        }
        if (status.getLastError() != null && !status.getLastError().isEmpty()) {
          errors.add(physical.size() == 1 ? status.getLastError() : "partition " + p + ": " + status.getLastError());
        }
      }
      return new OffloadStatus(state == null ? "NOT_RUN" : state, firstText, String.join("; ", errors));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the offload status of stream " + stream, e);
    }
  }
}
