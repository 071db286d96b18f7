package dev.streamfold.transforms.source;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.pulsar.source.PulsarSource;
import org.apache.flink.connector.pulsar.source.PulsarSourceBuilder;
import org.apache.flink.connector.pulsar.source.PulsarSourceOptions;

/**
 * The ledger as a Flink source of {@link SourceEvent}s: the Pulsar connector's source over a stream's topics,
 * its subscription positioned through the admin API at the job's start ({@link PresetSubscriptionEnumerator}),
 * starting at a position (or the earliest event) and, when bounded, ending after a position. A bounded source
 * acknowledges nothing ({@link WithoutCursorAcks}): a replay's subscription is deleted when it ends. This is the
 * one place in a job that knows the connector.
 */
public final class LedgerSource {
  /** How long the connector waits to fill a fetch, ms: events reach their job within 100 ms. */
  static final long MAX_FETCH_TIME_MS = 100;
  /** Records per fetch, at most. */
  static final int MAX_FETCH_RECORDS = 10_000;

  private LedgerSource() {}

  /**
   * A builder of a source reading {@code topics} on {@code subscription}.
   *
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param subscription the subscription to read on (created or reset at the job's start)
   * @param topics the topics read: a stream's topic, or the partitions' topics ({@code <topic>-partition-<n>})
   */
  public static Builder builder(String serviceUrl, String adminUrl, String subscription, List<String> topics) {
    return new Builder(serviceUrl, adminUrl, subscription, topics);
  }

  /** The name of a source over {@code topics} in the job graph: {@code ledger <stream topic>}. */
  public static String name(List<String> topics) {
    return "ledger " + topics.get(0).replaceAll("-partition-\\d+$", "");
  }

  /**
   * Hand fetched events over at least every 100 ms: the Pulsar source otherwise waits for up to 100
   * records or 10 s per fetch (connector defaults), so on a quiet stream one event took 5-10 s to reach
   * its view. Up to 10,000 records per fetch keep backfills fast.
   */
  private static <T> PulsarSourceBuilder<T> fetchPromptly(PulsarSourceBuilder<T> builder) {
    return builder.setConfig(PulsarSourceOptions.PULSAR_MAX_FETCH_TIME, MAX_FETCH_TIME_MS)
        .setConfig(PulsarSourceOptions.PULSAR_MAX_FETCH_RECORDS, MAX_FETCH_RECORDS);
  }

  /** Builds a ledger source; every setter returns the builder. */
  public static final class Builder {
    private final String serviceUrl;
    private final String adminUrl;
    private final String subscription;
    private final List<String> topics;
    private PositionVector startAt = PositionVector.EMPTY;
    private List<MessageId> stopAfter;
    private boolean payloadBytes;

    private Builder(String serviceUrl, String adminUrl, String subscription, List<String> topics) {
      this.serviceUrl = Objects.requireNonNull(serviceUrl, "serviceUrl");
      this.adminUrl = Objects.requireNonNull(adminUrl, "adminUrl");
      this.subscription = Objects.requireNonNull(subscription, "subscription");
      this.topics = List.copyOf(topics);
    }

    /**
     * Start at each listed partition's message ID, its entry included ({@link PositionCursors#start}); the
     * partitions not listed start at the earliest event. Default: every partition at the earliest event.
     *
     * @param position a message ID per partition, or empty for the earliest event
     */
    public Builder startAt(PositionVector position) {
      this.startAt = position == null ? PositionVector.EMPTY : position;
      return this;
    }

    /**
     * End after each listed partition's message ID, inclusive ({@link PositionCursors#stopAfter}): a bounded
     * source, which acknowledges nothing. Default: unbounded.
     *
     * @param readThrough the last message ID read, per partition; only the listed partitions may be among the
     *     topics (a partition without events would never end)
     */
    public Builder stopAfter(List<MessageId> readThrough) {
      this.stopAfter = List.copyOf(readThrough);
      return this;
    }

    /**
     * Leave payloads as their UTF-8 bytes ({@link SourceEvent#payloadBytes}) for jobs that read them only through
     * {@link PayloadParser#toRowData}; default false: decode them to text.
     */
    public Builder payloadBytes(boolean payloadBytes) {
      this.payloadBytes = payloadBytes;
      return this;
    }

    /** The source, with its subscription positioned at the job's start. */
    public Source<SourceEvent, ?, ?> build() {
      PulsarSourceBuilder<SourceEvent> builder = fetchPromptly(PulsarSource.<SourceEvent>builder())
          .setStartCursor(PositionCursors.start(startAt))
          .setSubscriptionName(subscription)
          .setDeserializationSchema(new LedgerEventDeserializer(payloadBytes))
          .setServiceUrl(serviceUrl)
          .setAdminUrl(adminUrl)
          .setTopics(topics);
      if (stopAfter != null) {
        builder.setBoundedStopCursor(PositionCursors.stopAfter(stopAfter));
      }
      PresetSubscriptionSource<SourceEvent> positioned = new PresetSubscriptionSource<>(builder.build(),
          new PresetSubscriptionEnumerator.Setup(adminUrl, subscription, topics, startAt.texts(),
              stopAfter == null ? null : PositionCursors.stopAfter(stopAfter)));
      return stopAfter == null ? positioned : new WithoutCursorAcks<>(positioned, TypeInformation.of(SourceEvent.class));
    }
  }
}
