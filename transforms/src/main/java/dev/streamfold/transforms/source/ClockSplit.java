package dev.streamfold.transforms.source;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The one split of a {@link ClockedLedgerSource}: the tenant's clock from just after a tick. Its state in a
 * checkpoint is the last tick whose events the reader handed over, all of them (a tick is emitted whole).
 *
 * @param afterTick the last tick read (0: from the clock's first tick)
 */
public record ClockSplit(long afterTick) implements SourceSplit {
  /** The split's id: there is one per source. */
  public static final String ID = "clock";

  @Override
  public String splitId() {
    return ID;
  }

  /** Writes a split as its tick number (version 1). */
  static final class Serializer implements SimpleVersionedSerializer<ClockSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(ClockSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeLong(split.afterTick());
      }
      return bytes.toByteArray();
    }

    @Override
    public ClockSplit deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException("clock split version " + version + " is not known (known: 1)");
      }
      try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized))) {
        return new ClockSplit(in.readLong());
      }
    }
  }
}
