package dev.streamfold.transforms.training;

import dev.streamfold.transforms.source.SourceEvent;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Sorts a bounded sequence of events by a key (epoch ms), ties in the order they were added, in at most about
 * {@code bufferBytes} of heap: a full buffer is sorted and written to a run file in {@code spillDir}, and the runs are
 * merged when read ({@link #sorted}). Events are written with Flink's serializer of {@link SourceEvent}. Not thread
 * safe; {@link #close} deletes the run files.
 */
final class EventSorter implements AutoCloseable {
  /** The heap a sorter fills before it writes a run, by default: 128 MiB (estimated from payload and ID lengths). */
  static final long DEFAULT_BUFFER_BYTES = 128L << 20;

  /** The buffer of each run file read or written. */
  private static final int IO_BUFFER = 1 << 20;

  private final long bufferBytes;
  private final Path spillDir;
  private final TypeSerializer<SourceEvent> serializer;
  private final List<Entry> buffer = new ArrayList<>();
  private final List<Path> runs = new ArrayList<>();
  private long buffered;
  private long added;

  private record Entry(long key, long seq, SourceEvent event) {}

  private static final Comparator<Entry> ORDER = Comparator.comparingLong(Entry::key).thenComparingLong(Entry::seq);

  /**
   * @param bufferBytes heap to fill before writing a run
   * @param spillDir where run files go (created when the first run is written)
   */
  EventSorter(long bufferBytes, Path spillDir) {
    this.bufferBytes = bufferBytes;
    this.spillDir = spillDir;
    this.serializer = TypeInformation.of(SourceEvent.class).createSerializer(new ExecutionConfig().getSerializerConfig());
  }

  /**
   * Add an event.
   *
   * @param key its sort key
   * @param event the event (kept, not copied, until a run is written)
   * @throws UncheckedIOException if a run cannot be written
   */
  void add(long key, SourceEvent event) {
    buffer.add(new Entry(key, added++, event));
    buffered += 96 + (event.payloadBytes != null ? event.payloadBytes.length : 0)
        + 2L * ((event.payload != null ? event.payload.length() : 0) + (event.messageId != null ? event.messageId.length()
        : 0) + (event.key != null ? event.key.length() : 0));
    if (buffered >= bufferBytes) {
      spill();
    }
  }

  /** The number of run files written so far. */
  int runs() {
    return runs.size();
  }

  /**
   * Every event added, in key order (ties in the order added). Call once, after the last {@link #add}.
   *
   * @return the events
   * @throws UncheckedIOException if a run cannot be read
   */
  Iterator<SourceEvent> sorted() {
    buffer.sort(ORDER);
    if (runs.isEmpty()) {
      Iterator<Entry> it = buffer.iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public SourceEvent next() {
          return it.next().event();
        }
      };
    }
    spill();
    return new Merge();
  }

  private void spill() {
    if (buffer.isEmpty()) {
      return;
    }
    buffer.sort(ORDER);
    try {
      Files.createDirectories(spillDir);
      Path run = spillDir.resolve("run-" + runs.size());
      // each entry serialized in memory, then written whole: the serializer writes field by field, and through a
      // stream each of its small writes was a call down the stream chain (40 % of a build's source task)
      DataOutputSerializer entry = new DataOutputSerializer(1 << 10);
      try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(run), IO_BUFFER))) {
        for (Entry e : buffer) {
          entry.clear();
          entry.writeLong(e.key());
          entry.writeLong(e.seq());
          serializer.serialize(e.event(), entry);
          out.writeInt(entry.length());
          out.write(entry.getSharedBuffer(), 0, entry.length());
        }
      }
      runs.add(run);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a sort run to " + spillDir, e);
    }
    buffer.clear();
    buffered = 0;
  }

  /** The k-way merge of the runs. */
  private final class Merge implements Iterator<SourceEvent> {
    private final PriorityQueue<Head> heads = new PriorityQueue<>(Comparator.comparing(Head::entry, ORDER));

    private record Head(Entry entry, DataInputStream in) {}

    Merge() {
      for (Path run : runs) {
        try {
          DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(run), IO_BUFFER));
          Entry first = read(in);
          if (first != null) {
            heads.add(new Head(first, in));
          } else {
            in.close();
          }
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read sort run " + run, e);
        }
      }
    }

    private byte[] bytes = new byte[1 << 10];
    private final DataInputDeserializer entry = new DataInputDeserializer();

    private Entry read(DataInputStream in) throws IOException {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException end) {
        return null;
      }
      if (bytes.length < length) {
        bytes = new byte[Math.max(length, 2 * bytes.length)];
      }
      in.readFully(bytes, 0, length);
      entry.setBuffer(bytes, 0, length);
      long key = entry.readLong();
      long seq = entry.readLong();
      return new Entry(key, seq, serializer.deserialize(entry));
    }

    @Override
    public boolean hasNext() {
      return !heads.isEmpty();
    }

    @Override
    public SourceEvent next() {
      Head head = heads.poll();
      if (head == null) {
        throw new NoSuchElementException();
      }
      try {
        Entry next = read(head.in());
        if (next != null) {
          heads.add(new Head(next, head.in()));
        } else {
          head.in().close();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read a sort run in " + spillDir, e);
      }
      return head.entry().event();
    }
  }

  @Override
  public void close() throws IOException {
    for (Path run : runs) {
      Files.deleteIfExists(run);
    }
    Files.deleteIfExists(spillDir);
  }
}
