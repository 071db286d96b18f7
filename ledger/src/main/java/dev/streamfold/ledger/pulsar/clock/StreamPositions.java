package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.clock.PollSchedule;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionMode;
import org.apache.pulsar.client.api.SubscriptionType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the position vector of every stream of one tenant: the broker's last persisted message ID of each
 * partition (Pulsar's {@code GetLastMessageId}, over the binary protocol). It asks through one consumer per
 * partition on a non-durable subscription that never receives (receiver queue 0: the broker dispatches nothing
 * to it, and keeps no cursor after it goes). It asks only about the streams its {@link PollSchedule} says may
 * have moved. The tenant's streams are listed again every {@code listInterval}, and at once when this server
 * touched a stream the last listing did not hold. Not thread-safe, but for {@link #touched}: one caller (the
 * clock's writer).
 */
final class StreamPositions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamPositions.class);

  /** The non-durable subscription the positions are asked through (shared by this cluster's writers). */
  static final String SUBSCRIPTION = "streamfold-clock-positions";

  private final PulsarClient client;
  private final StreamTopics topics;
  private final String tenant;
  private final Clock clock;
  private final Duration listInterval;
  private final PollSchedule schedule;
  private final Map<StreamRef, List<PartitionConsumer>> consumers = new HashMap<>();
  /** The last position read of each stream, to tell whether it moved. */
  private final Map<StreamRef, PositionVector> lastRead = new HashMap<>();
  private List<StreamRef> streams = List.of();
  private long listedAtMs = Long.MIN_VALUE;

  StreamPositions(PulsarClient client, StreamTopics topics, String tenant, Clock clock, Duration listInterval,
      PollSchedule schedule) {
    this.client = client;
    this.topics = topics;
    this.tenant = tenant;
    this.clock = clock;
    this.listInterval = listInterval;
    this.schedule = schedule;
  }

  /** This server appended to or created a stream of the tenant: ask about it in the next round. Thread-safe. */
  void touched(StreamRef stream) {
    schedule.touched(stream);
  }

  /** A consumer that asks for one partition's last message ID; partition -1 for an unpartitioned stream. */
  private record PartitionConsumer(int partition, Consumer<byte[]> consumer) {}

  /**
   * The position vector of every stream that holds events and is due ({@link PollSchedule}). A stream or
   * partition whose position cannot be read this time is left out (the clock's next tick keeps its last
   * position), as is a stream not due.
   *
   * @param timeout longest wait for the brokers' answers
   * @return vectors by stream name
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if the streams cannot be listed
   */
  Map<String, PositionVector> observe(Duration timeout) {
    relist();
    long nowMs = clock.millis();
    Map<StreamRef, Map<Integer, CompletableFuture<org.apache.pulsar.client.api.MessageId>>> asked = new HashMap<>();
    for (StreamRef stream : schedule.due(streams, nowMs)) {
      List<PartitionConsumer> partitions = consumers(stream);
      if (partitions != null) {
        Map<Integer, CompletableFuture<org.apache.pulsar.client.api.MessageId>> futures = new HashMap<>();
        partitions.forEach(r -> futures.put(r.partition(), r.consumer().getLastMessageIdAsync()));
        asked.put(stream, futures);
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, PositionVector> observed = new HashMap<>();
    for (Map.Entry<StreamRef, Map<Integer, CompletableFuture<org.apache.pulsar.client.api.MessageId>>> e : asked.entrySet()) {
      List<MessageId> ids = new ArrayList<>();
      boolean complete = true;
      for (Map.Entry<Integer, CompletableFuture<org.apache.pulsar.client.api.MessageId>> partition : e.getValue().entrySet()) {
        try {
          long left = Math.max(0, deadline - System.nanoTime());
          MessageId id = PulsarMessageIds.toText(partition.getValue().get(left, TimeUnit.NANOSECONDS), partition.getKey());
          if (id.entryId() >= 0) { // -1: no entry yet in this partition (or in its current segment)
            ids.add(id);
          }
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return observed;
        } catch (Exception failed) {
          complete = false;
          LOG.debug("clock of tenant '{}': no position for {} partition {} this time: {}", tenant, e.getKey(),
              partition.getKey(), failed.toString());
        }
      }
      PositionVector read = PositionVector.of(ids);
      if (complete) {
        schedule.asked(e.getKey(), !read.equals(lastRead.put(e.getKey(), read)), nowMs);
      }
      if (!ids.isEmpty()) {
        observed.put(e.getKey().stream(), read);
      }
    }
    return observed;
  }

  private void relist() {
    long now = clock.millis();
    if (listedAtMs != Long.MIN_VALUE && now - listedAtMs < listInterval.toMillis() && !schedule.touchedUnknown(streams)) {
      return;
    }
    streams = topics.list(tenant);
    listedAtMs = now;
    lastRead.keySet().retainAll(streams);
    for (StreamRef gone : new HashSet<>(consumers.keySet())) {
      if (!streams.contains(gone)) {
        consumers.remove(gone).forEach(r -> r.consumer().closeAsync());
      }
    }
  }

  /** The consumers of a stream's partitions, opened on first use; null when they cannot be opened now. */
  private List<PartitionConsumer> consumers(StreamRef stream) {
    List<PartitionConsumer> open = consumers.get(stream);
    if (open != null) {
      return open;
    }
    List<PartitionConsumer> created = new ArrayList<>();
    try {
      int partitions = topics.partitions(stream);
      if (partitions == 0) {
        created.add(new PartitionConsumer(-1, consumer(stream.topic())));
      }
      for (int p = 0; p < partitions; p++) {
        created.add(new PartitionConsumer(p, consumer(stream.partitionTopic(p))));
      }
      consumers.put(stream, created);
      return created;
    } catch (Exception e) {
      created.forEach(r -> r.consumer().closeAsync());
      LOG.debug("clock of tenant '{}': cannot open consumers of {} now: {}", tenant, stream, e.toString());
      return null;
    }
  }

  private Consumer<byte[]> consumer(String topic) throws PulsarClientException {
    return client.newConsumer(Schema.BYTES).topic(topic).subscriptionName(SUBSCRIPTION)
        .subscriptionMode(SubscriptionMode.NonDurable).subscriptionInitialPosition(SubscriptionInitialPosition.Latest)
        .subscriptionType(SubscriptionType.Shared).receiverQueueSize(0).subscribe();
  }

  @Override
  public void close() {
    consumers.values().forEach(list -> list.forEach(r -> r.consumer().closeAsync()));
    consumers.clear();
  }
}
