package dev.streamfold.transforms.source;

import dev.streamfold.core.MessageId;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.pulsar.source.enumerator.PulsarSourceEnumState;
import org.apache.flink.connector.pulsar.source.enumerator.cursor.StopCursor;
import org.apache.flink.connector.pulsar.source.enumerator.topic.TopicPartition;
import org.apache.flink.connector.pulsar.source.split.PulsarPartitionSplit;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.common.naming.TopicName;

/**
 * The split enumerator of the ledger source (of {@link PresetSubscriptionSource}): it creates the job's
 * subscription on every partition it reads at its start position, or resets it there when it exists, through
 * the admin API, then hands each partition's split to a reader (and, in a bounded job, tells the readers
 * there are no more).
 *
 * <p>It replaces the Pulsar connector's own enumerator. That one positions the
 * subscription of each partition in turn with a consumer on its own Pulsar client: subscribe, seek, close.
 * The broker answers a seek by disconnecting the subscription's consumers, so the consumer is reconnecting
 * (a new subscribe in flight) when the seek completes and the connector closes it; when the broker's answer
 * to that subscribe arrives, the Pulsar client (3.0.0, and 4.0.8 alike: {@code ConsumerImpl.connectionOpened})
 * finds the consumer closed and closes the whole connection "to make sure the broker drops the consumer",
 * which fails whatever else that client has in flight on it: the next partition's lookup or subscribe. The
 * job then failed with {@code Disconnected from server}. The window is a few milliseconds after a seek that
 * took longer than the consumer's 100 ms reconnect backoff, so it opened when the broker was slow, e.g.
 * while other replays started or deleted their subscriptions (issue 36); a view job's start was hit the same
 * way (and restarted). The admin API positions a subscription without a consumer, so there is nothing to
 * reconnect. A stream's partitions are fixed, so the enumerator does not look for new ones.
 */
public final class PresetSubscriptionEnumerator implements SplitEnumerator<PulsarPartitionSplit, PulsarSourceEnumState> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PresetSubscriptionEnumerator.class);

  /**
   * What the enumerator sets up.
   *
   * @param adminUrl Pulsar admin URL
   * @param subscription the job's subscription (created here, or reset to the start when it exists)
   * @param topics the topics read, as given to the source: a non-partitioned topic, or partitions' topics
   * @param start message ID text per partition where that partition starts, entry included (a batched
   *     entry is read from its first message); partitions not listed start at the earliest event
   * @param stop the stop cursor of every split of a bounded job; null for an unbounded one
   */
  public record Setup(String adminUrl, String subscription, List<String> topics, List<String> start, StopCursor stop)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Where a topic's subscription starts. */
    org.apache.pulsar.client.api.MessageId startOf(int partition) {
      for (String text : start) {
        MessageId id = MessageId.parse(text);
        if (id.partition() == partition) {
          return PulsarMessageIds.toPulsar(new MessageId(id.ledgerId(), id.entryId(), id.partition(), -1));
        }
      }
      return org.apache.pulsar.client.api.MessageId.earliest;
    }
  }

  private final Setup setup;
  private final SplitEnumeratorContext<PulsarPartitionSplit> context;
  private final Set<TopicPartition> appended;
  /** The partitions of the restored state (read by the worker thread). */
  private final Set<TopicPartition> restored;
  private final Map<Integer, List<PulsarPartitionSplit>> pending = new HashMap<>();
  private boolean positioned;

  /**
   * @param setup the subscription and splits
   * @param context the enumerator's context
   * @param state restored state (the partitions already handed out), or null for a new job
   */
  public PresetSubscriptionEnumerator(Setup setup, SplitEnumeratorContext<PulsarPartitionSplit> context,
      @Nullable PulsarSourceEnumState state) {
    this.setup = setup;
    this.context = context;
    this.restored = state == null ? Set.of() : Set.copyOf(state.getAppendedPartitions());
    this.appended = new HashSet<>(restored);
  }

  @Override
  public void start() {
    context.callAsync(this::createSubscriptions, this::subscriptionsCreated);
  }

  /** Runs on the coordinator's worker thread: network I/O only. */
  private List<TopicPartition> createSubscriptions() throws Exception {
    List<TopicPartition> partitions = new ArrayList<>();
    try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(setup.adminUrl()).build()) {
      List<CompletableFuture<Void>> created = new ArrayList<>();
      for (String topic : new LinkedHashSet<>(setup.topics())) {
        TopicName name = TopicName.get(topic);
        int partition = name.isPartitioned() ? name.getPartitionIndex() : TopicPartition.NON_PARTITION_ID;
        TopicPartition topicPartition = new TopicPartition(name.getPartitionedTopicName(), partition);
        partitions.add(topicPartition);
        if (restored.contains(topicPartition)) {
          continue; // its reader resumes from its own split state
        }
        org.apache.pulsar.client.api.MessageId at = setup.startOf(partition);
        created.add(admin.topics().createSubscriptionAsync(name.toString(), setup.subscription(), at)
            .exceptionallyCompose(e -> unwrap(e) instanceof PulsarAdminException.ConflictException
                ? admin.topics().resetCursorAsync(name.toString(), setup.subscription(), at) // it exists: reset it
                : CompletableFuture.failedFuture(e)));
        LOG.debug("subscription {} on {} starts at {}", setup.subscription(), name, at);
      }
      CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
    }
    return partitions;
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /** Runs on the coordinator thread. */
  private void subscriptionsCreated(List<TopicPartition> partitions, Throwable error) {
    if (error != null) {
      throw new FlinkRuntimeException("cannot create subscription " + setup.subscription() + " on "
          + String.join(",", setup.topics()) + ": " + error.getMessage(), error);
    }
    int parallelism = context.currentParallelism();
    for (TopicPartition partition : partitions) {
      if (appended.add(partition)) {
        int owner = Math.max(0, partition.getPartitionId()) % parallelism;
        pending.computeIfAbsent(owner, r -> new ArrayList<>()).add(new PulsarPartitionSplit(partition,
            setup.stop() == null ? StopCursor.never() : setup.stop()));
      }
    }
    positioned = true;
    assignPending(new ArrayList<>(context.registeredReaders().keySet()));
  }

  /**
   * Hand the readers their splits once the subscription is set up, and in a bounded job tell them there are
   * no more (an unbounded job's readers are never told, as with the connector's partition discovery).
   */
  private void assignPending(List<Integer> readers) {
    if (!positioned) {
      return;
    }
    Map<Integer, List<PulsarPartitionSplit>> assignment = new TreeMap<>();
    for (int reader : readers) {
      if (!context.registeredReaders().containsKey(reader)) {
        continue;
      }
      List<PulsarPartitionSplit> splits = pending.remove(reader);
      if (splits != null && !splits.isEmpty()) {
        assignment.put(reader, splits);
      }
    }
    if (!assignment.isEmpty()) {
      LOG.info("subscription {}: split assignment {}", setup.subscription(), assignment);
      context.assignSplits(new SplitsAssignment<>(assignment));
    }
    for (int reader : readers) {
      if (setup.stop() != null && context.registeredReaders().containsKey(reader) && !pending.containsKey(reader)) {
        context.signalNoMoreSplits(reader);
      }
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
    // splits are pushed
  }

  @Override
  public void addSplitsBack(List<PulsarPartitionSplit> splits, int subtaskId) {
    pending.computeIfAbsent(subtaskId, r -> new ArrayList<>()).addAll(splits);
    assignPending(List.of(subtaskId));
  }

  @Override
  public void addReader(int subtaskId) {
    assignPending(List.of(subtaskId));
  }

  @Override
  public PulsarSourceEnumState snapshotState(long checkpointId) {
    return new PulsarSourceEnumState(new HashSet<>(appended));
  }

  @Override
  public void close() {
    // the admin client lives only while the subscription is created
  }
}
