package dev.streamfold.transforms.source;

import dev.streamfold.core.Tick;
import dev.streamfold.ledger.clock.TickSlice;
import dev.streamfold.ledger.pulsar.clock.ClockTail;
import dev.streamfold.ledger.pulsar.clock.TickLocator;
import dev.streamfold.ledger.pulsar.clock.TickSliceReader;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.util.Collector;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;

/**
 * Reads a {@link ClockedLedgerSource}'s split: waits for the clock's next tick, then hands over every event of the
 * tick's slice of the streams read and then the tick's end marker ({@link SourceEvent#endOfTick}), all within one
 * {@link #pollNext} call, so that a checkpoint (taken between
 * calls) always falls on a tick boundary and its state is the last tick read. Blocks its task for at most
 * {@link ClockedLedgerSource.Setup#pollWait} while no tick comes, and for a tick's whole slice when one does.
 */
final class ClockedLedgerReader implements SourceReader<SourceEvent, ClockSplit> {
  private final ClockedLedgerSource.Setup setup;
  private final SourceReaderContext context;
  private final LedgerEventDeserializer deserializer;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private ClockSplit split;
  private PulsarClient client;
  private ClockTail clock;
  private TickSliceReader slices;
  private Tick previous;

  ClockedLedgerReader(ClockedLedgerSource.Setup setup, SourceReaderContext context) {
    this.setup = setup;
    this.context = context;
    this.deserializer = new LedgerEventDeserializer(setup.payloadBytes());
  }

  @Override
  public void start() {
    context.sendSplitRequest();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<SourceEvent> output) throws Exception {
    if (split == null) {
      return InputStatus.NOTHING_AVAILABLE;
    }
    if (setup.stopAfterTick() >= 0 && split.afterTick() >= setup.stopAfterTick()) {
      return InputStatus.END_OF_INPUT;
    }
    open();
    var next = clock.next(setup.pollWait());
    if (next.isEmpty()) {
      return InputStatus.MORE_AVAILABLE;
    }
    Tick tick = next.get();
    TickSlice slice = TickSlice.of(previous, tick);
    if (setup.gate() != null && previous.number() > 0
        && slice.ranges().stream().anyMatch(range -> range.stream().equals(setup.gatedStream()))) {
      TickGate.of(setup.gate()).await(previous.number(), setup.timeout());
    }
    slices.read(slice, (range, id, message) -> deserializer.deserialize(message, new Collector<>() {
      @Override
      public void collect(SourceEvent event) {
        event.position(id);
        event.stream = range.stream();
        event.tick = tick.number();
        output.collect(event);
      }

      @Override
      public void close() {}
    }));
    output.collect(SourceEvent.endOfTick(tick.number()));
    previous = tick;
    split = new ClockSplit(tick.number());
    return InputStatus.MORE_AVAILABLE;
  }

  /** Open the client, the clock after the split's tick, and that tick itself (the slice of the next one needs it). */
  private void open() throws PulsarClientException {
    if (clock != null) {
      return;
    }
    client = PulsarClient.builder().serviceUrl(setup.serviceUrl()).build();
    long after = split.afterTick();
    if (after > 1 && setup.adminUrl() != null) {
      try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(setup.adminUrl()).build()) {
        clock = new ClockTail(client, setup.tenant(), after - 1, new TickLocator(admin, client, setup.timeout(),
            TickLocator.DEFAULT_SCAN_ENTRIES));
      }
    } else {
      clock = new ClockTail(client, setup.tenant(), Math.max(0, after - 1));
    }
    previous = after == 0 ? Tick.ZERO : clock.next(setup.timeout()).orElseThrow(() -> new IllegalStateException(
        "the clock of tenant '" + setup.tenant() + "' has no tick " + after + " to resume after (within "
            + setup.timeout().toMillis() + " ms)"));
    slices = new TickSliceReader(client, setup.tenant(), setup.streams(), setup.timeout());
  }

  @Override
  public List<ClockSplit> snapshotState(long checkpointId) {
    return split == null ? List.of() : List.of(split);
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<ClockSplit> splits) {
    if (splits.size() != 1 || split != null) {
      throw new IllegalStateException("a clocked source reader reads one split, got " + splits + " while holding " + split);
    }
    split = splits.get(0);
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() throws Exception {
    if (setup.gate() != null) {
      TickGate.close(setup.gate());
    }
    if (slices != null) {
      slices.close();
    }
    if (clock != null) {
      clock.close();
    }
    if (client != null) {
      client.close();
    }
  }
}
