package dev.streamfold.transforms.source;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Several streams of one tenant as one Flink source, in the tenant clock's order (docs/design.md, "Many streams,
 * one clock"): tick by tick, each tick's new events by stream name, partition and message ID. Every event carries
 * its stream and the tick that first covers it ({@link SourceEvent#stream}, {@link SourceEvent#tick}). A tick is
 * emitted whole between two checkpoints, so the source's checkpointed position is always a tick. One reader
 * (parallelism 1): the order is total.
 */
public final class ClockedLedgerSource
    implements Source<SourceEvent, ClockSplit, List<ClockSplit>>, ResultTypeQueryable<SourceEvent> {
  private static final long serialVersionUID = 1L;
  /** How long one poll waits for the next tick, by default. */
  public static final Duration DEFAULT_POLL_WAIT = Duration.ofMillis(50);
  /** How long the reader waits for one event a tick covers, by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * What the reader reads.
   *
   * @param serviceUrl Pulsar service URL
   * @param tenant the tenant whose clock orders the events
   * @param streams the stream names read (sorted)
   * @param afterTick the last tick already read: the source starts with the next one (0: the first)
   * @param stopAfterTick the last tick read by a bounded source, or -1 for an unbounded one
   * @param payloadBytes leave payloads as bytes ({@link SourceEvent#payloadBytes}) rather than text
   * @param pollWait the longest one poll waits for a tick (the task's checkpoints wait as long at most)
   * @param timeout the longest wait for one event a tick covers, or for the tick a restart resumes after
   * @param adminUrl Pulsar admin URL, to find the tick it starts after without reading the ticks before it
   *     ({@link dev.streamfold.ledger.pulsar.clock.TickLocator}); null to read from the clock's first tick
   * @param gate the {@link TickGate} to wait on before a tick with events of {@code gatedStream} (each waits until
   *     the tick before it is complete); null for none
   * @param gatedStream the stream whose events make a tick wait at the gate
   */
  public record Setup(String serviceUrl, String tenant, Set<String> streams, long afterTick, long stopAfterTick,
      boolean payloadBytes, Duration pollWait, Duration timeout, String adminUrl, String gate, String gatedStream)
      implements Serializable {
    /** Check and copy. */
    public Setup {
      Objects.requireNonNull(serviceUrl, "serviceUrl");
      Objects.requireNonNull(tenant, "tenant");
      if (streams.isEmpty()) {
        throw new IllegalArgumentException("a clocked source reads at least one stream");
      }
      if (afterTick < 0 || stopAfterTick < -1) {
        throw new IllegalArgumentException("afterTick must be >= 0 and stopAfterTick >= -1, got " + afterTick + ", "
            + stopAfterTick);
      }
      streams = new TreeSet<>(streams);
    }
  }

  private final Setup setup;

  private ClockedLedgerSource(Setup setup) {
    this.setup = setup;
  }

  /**
   * A builder of a source over some of a tenant's streams.
   *
   * @param serviceUrl Pulsar service URL
   * @param tenant the tenant
   * @param streams the stream names
   */
  public static Builder builder(String serviceUrl, String tenant, Set<String> streams) {
    return new Builder(serviceUrl, tenant, streams);
  }

  @Override
  public Boundedness getBoundedness() {
    return setup.stopAfterTick() < 0 ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<SourceEvent, ClockSplit> createReader(SourceReaderContext context) {
    return new ClockedLedgerReader(setup, context);
  }

  @Override
  public SplitEnumerator<ClockSplit, List<ClockSplit>> createEnumerator(SplitEnumeratorContext<ClockSplit> context) {
    return new ClockEnumerator(context, List.of(new ClockSplit(setup.afterTick())));
  }

  @Override
  public SplitEnumerator<ClockSplit, List<ClockSplit>> restoreEnumerator(SplitEnumeratorContext<ClockSplit> context,
      List<ClockSplit> checkpoint) {
    return new ClockEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<ClockSplit> getSplitSerializer() {
    return new ClockSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<List<ClockSplit>> getEnumeratorCheckpointSerializer() {
    return new ClockEnumerator.StateSerializer();
  }

  @Override
  public TypeInformation<SourceEvent> getProducedType() {
    return TypeInformation.of(SourceEvent.class);
  }

  /** Builds a clocked source; every setter returns the builder. */
  public static final class Builder {
    private final String serviceUrl;
    private final String tenant;
    private final Set<String> streams;
    private long afterTick;
    private long stopAfterTick = -1;
    private boolean payloadBytes;
    private Duration pollWait = DEFAULT_POLL_WAIT;
    private Duration timeout = DEFAULT_TIMEOUT;
    private String adminUrl;
    private String gate;
    private String gatedStream;

    private Builder(String serviceUrl, String tenant, Set<String> streams) {
      this.serviceUrl = serviceUrl;
      this.tenant = tenant;
      this.streams = Set.copyOf(streams);
    }

    /** Start after this tick (default 0: from the clock's first tick). */
    public Builder afterTick(long tick) {
      this.afterTick = tick;
      return this;
    }

    /** End after this tick: a bounded source (default: unbounded). */
    public Builder stopAfterTick(long tick) {
      this.stopAfterTick = tick;
      return this;
    }

    /** Leave payloads as UTF-8 bytes (default false: text). */
    public Builder payloadBytes(boolean payloadBytes) {
      this.payloadBytes = payloadBytes;
      return this;
    }

    /** The longest one poll waits for a tick (default {@link #DEFAULT_POLL_WAIT}). */
    public Builder pollWait(Duration pollWait) {
      this.pollWait = pollWait;
      return this;
    }

    /** The longest wait for one event a tick covers (default {@link #DEFAULT_TIMEOUT}). */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Pulsar's admin URL, to start after a tick without reading the ticks before it (default none). */
    public Builder adminUrl(String adminUrl) {
      this.adminUrl = adminUrl;
      return this;
    }

    /**
     * Before a tick with events of {@code stream}, wait until {@link TickGate} {@code id} says the tick before it is
     * complete (default: no gate). For bounded jobs whose every operator runs in this source's JVM.
     */
    public Builder gate(String id, String stream) {
      this.gate = id;
      this.gatedStream = stream;
      return this;
    }

    /** The source. */
    public ClockedLedgerSource build() {
      return new ClockedLedgerSource(new Setup(serviceUrl, tenant, streams, afterTick, stopAfterTick, payloadBytes,
          pollWait, timeout, adminUrl, gate, gatedStream));
    }
  }
}
