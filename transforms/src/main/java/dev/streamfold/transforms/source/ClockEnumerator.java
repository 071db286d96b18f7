package dev.streamfold.transforms.source;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Hands the one {@link ClockSplit} of a {@link ClockedLedgerSource} to the first reader that asks, and takes it
 * back when that reader fails. Its checkpoint is the split not yet handed out (none once a reader holds it: the
 * reader's own state then has it).
 */
final class ClockEnumerator implements SplitEnumerator<ClockSplit, List<ClockSplit>> {
  private final SplitEnumeratorContext<ClockSplit> context;
  private final List<ClockSplit> pending;

  ClockEnumerator(SplitEnumeratorContext<ClockSplit> context, List<ClockSplit> pending) {
    this.context = context;
    this.pending = new ArrayList<>(pending);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    if (!pending.isEmpty()) {
      context.assignSplit(pending.remove(0), subtaskId);
    }
  }

  @Override
  public void addSplitsBack(List<ClockSplit> splits, int subtaskId) {
    pending.addAll(splits);
  }

  @Override
  public void addReader(int subtaskId) {
    // the reader asks for the split itself (handleSplitRequest)
  }

  @Override
  public List<ClockSplit> snapshotState(long checkpointId) {
    return List.copyOf(pending);
  }

  @Override
  public void close() {}

  /** Writes the pending splits (version 1). */
  static final class StateSerializer implements SimpleVersionedSerializer<List<ClockSplit>> {
    private final ClockSplit.Serializer splits = new ClockSplit.Serializer();

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(List<ClockSplit> state) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(state.size());
        for (ClockSplit split : state) {
          byte[] one = splits.serialize(split);
          out.writeInt(one.length);
          out.write(one);
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public List<ClockSplit> deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException("clock enumerator state version " + version + " is not known (known: 1)");
      }
      List<ClockSplit> state = new ArrayList<>();
      try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized))) {
        int count = in.readInt();
        for (int i = 0; i < count; i++) {
          byte[] one = new byte[in.readInt()];
          in.readFully(one);
          state.add(splits.deserialize(splits.getVersion(), one));
        }
      }
      return state;
    }
  }
}
