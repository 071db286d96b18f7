package dev.streamfold.transforms.training;

import dev.streamfold.transforms.source.SourceEvent;
import dev.streamfold.transforms.source.TickGate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The clock of a training set cut by event time: takes every event of the streams read, sorts them by their <i>cut
 * time</i> (the event time; with {@code knownAt} the later of the event time and the time the ledger acknowledged the
 * event, so an event counts once it both happened and was known), ties in the tenant clock's order, and when the input
 * ends hands them on in that order. Each element handed on is numbered 0, 1, 2, ... (its ordinal), carries it as Flink
 * timestamp and is followed by a watermark of it: downstream this is the one-stream ledger clock of
 * {@link PointInTimeJoin}, on which a label sees each view as the fold of exactly the elements before it.
 *
 * <p>Labels from a file: the file's rows are merged in, a row whose time is T after every event of cut time at or
 * before T (Feast's rule: inclusive), before every later one. A label row is a {@link SourceEvent} of stream
 * {@link TrainingSetPreparer#LABELS_TABLE}, its payload the row's JSON object, its event time the row's time, no
 * message ID. Events whose cut time is after the last row's are not handed on: they change no row. Labels from a
 * stream: the label stream's events are the labels, each after the events before it in this order; with
 * {@code knownAt} a label is placed at its event time (a copy of its event, of stream
 * {@link TrainingSetPreparer#LABEL_EVENTS_TABLE}) and its event counts as any other from its cut time on, so that the
 * features are what had happened by the label's time and was known by then.
 *
 * <p>With a {@link TickGate} (a feature view unions several streams, whose output mixes the effects of
 * consecutive events), an end-of-tick marker numbered 1, 2, ... goes before each group of a file's rows of one time,
 * or before each label stream event that follows an event such a view reads, and the next event waits until the join
 * has completed that marker: the view's state at the marker is then exactly the fold of the events before it.
 *
 * <p>Upstream watermarks are dropped; the final one is emitted after the last element. Memory: at most
 * {@link EventSorter#DEFAULT_BUFFER_BYTES} of events (more are sorted in runs on disk), plus one label row.
 */
final class EventTimeOrder extends AbstractStreamOperator<SourceEvent>
    implements OneInputStreamOperator<SourceEvent, SourceEvent>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  /** How long the first wait at the gate allows the join to start. */
  private static final Duration GATE_OPENING = Duration.ofMinutes(2);

  private final Labels labels;
  private final boolean knownAt;
  private final Gate gate;
  private final String scratch;
  private final long bufferBytes;
  private transient EventSorter sorter;
  private transient long ordinal;
  private transient long tick;

  /**
   * Where the labels come from: the rows of a file in time order ({@link LabelsFile#writeInTimeOrder}), or the events
   * of a stream; one of the two.
   */
  record Labels(String inTimeOrder, String stream) implements java.io.Serializable {
    static Labels ofFile(String inTimeOrder) {
      return new Labels(inTimeOrder, null);
    }

    static Labels ofStream(String stream) {
      return new Labels(null, stream);
    }

    /**
     * The stream of the elements that are labels: a file's rows; the label stream's events; or, with known-at, their
     * copies {@link TrainingSetPreparer#LABEL_EVENTS_TABLE}, placed at the label's event time while the event itself
     * counts as a feature's input from its cut time on.
     *
     * @param knownAt whether events count from the later of their event and acknowledgement times
     * @return the stream name the table of labels flags
     */
    String labelsOf(boolean knownAt) {
      return stream == null ? TrainingSetPreparer.LABELS_TABLE : knownAt ? TrainingSetPreparer.LABEL_EVENTS_TABLE : stream;
    }
  }

  /**
   * The gate to wait at before each label after events a view that unions several streams reads.
   *
   * @param id the {@link TickGate}'s id
   * @param streams the streams those views read
   */
  record Gate(String id, Set<String> streams) implements java.io.Serializable {
    Gate {
      streams = Set.copyOf(streams);
    }
  }

  /**
   * @param labels where the labels come from
   * @param knownAt cut events by the later of their event time and acknowledgement time
   * @param gate the gate, or null when no feature view unions several streams
   * @param scratch a directory for sorted runs
   * @param bufferBytes heap for sorting before runs go to disk
   */
  EventTimeOrder(Labels labels, boolean knownAt, Gate gate, String scratch, long bufferBytes) {
    this.labels = labels;
    this.knownAt = knownAt;
    this.gate = gate;
    this.scratch = scratch;
    this.bufferBytes = bufferBytes;
    setChainingStrategy(ChainingStrategy.ALWAYS); // in the source's task
  }

  /**
   * The time at which an event counts for a label of time T (it does when this is at or before T).
   *
   * @param event the event
   * @param knownAt whether the acknowledgement time counts too
   * @return epoch ms
   */
  static long cutTime(SourceEvent event, boolean knownAt) {
    return knownAt ? Math.max(event.eventTimeMs, event.publishTimeMs) : event.eventTimeMs;
  }

  @Override
  public void open() throws Exception {
    super.open();
    sorter = new EventSorter(bufferBytes, Path.of(scratch).resolve("sort-" + UUID.randomUUID()));
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (!event.endOfTick) {
      if (knownAt && labels.stream() != null && labels.stream().equals(event.stream)) {
        sorter.add(event.eventTimeMs, labelCopy(event)); // the label is at its event time, its event counts later
      }
      sorter.add(cutTime(event, knownAt), event);
    }
  }

  @Override
  public void processWatermark(Watermark mark) {
    // the ordinals are this operator's clock
  }

  @Override
  public void endInput() throws Exception {
    if (labels.stream() != null) {
      emitWithLabelEvents();
    } else {
      emitWithFileRows();
    }
    output.emitWatermark(Watermark.MAX_WATERMARK);
  }

  /**
   * A label event's label: the same event as an element of {@link TrainingSetPreparer#LABEL_EVENTS_TABLE}, which only
   * the table of labels reads.
   */
  private static SourceEvent labelCopy(SourceEvent event) {
    SourceEvent copy = new SourceEvent(event.messageId, event.key, event.eventTimeMs, event.sequenceId, event.payload,
        event.type);
    copy.payloadBytes = event.payloadBytes;
    copy.publishTimeMs = event.publishTimeMs;
    copy.partition = event.partition;
    copy.tick = event.tick;
    copy.stream = TrainingSetPreparer.LABEL_EVENTS_TABLE;
    return copy;
  }

  /** Every event in order, a marker before each label that follows an event a gated view reads. */
  private void emitWithLabelEvents() throws InterruptedException {
    String labelsOf = labels.labelsOf(knownAt);
    boolean sinceMarker = false;
    Iterator<SourceEvent> events = sorter.sorted();
    while (events.hasNext()) {
      SourceEvent event = events.next();
      if (gate != null) {
        if (sinceMarker && labelsOf.equals(event.stream)) {
          emit(SourceEvent.endOfTick(++tick));
          TickGate.of(gate.id()).await(tick, GATE_OPENING);
          sinceMarker = false;
        }
        sinceMarker |= gate.streams().contains(event.stream);
      }
      emit(event);
    }
  }

  /** The events in order with the file's rows merged in, up to the last row. */
  private void emitWithFileRows() throws IOException, InterruptedException {
    try (BufferedReader rows = Files.newBufferedReader(Path.of(labels.inTimeOrder()), StandardCharsets.UTF_8)) {
      Label next = Label.read(rows);
      long waitFor = 0;
      Iterator<SourceEvent> events = sorter.sorted();
      while (next != null && events.hasNext()) { // events after the last row change no row: left unfolded
        SourceEvent event = events.next();
        long at = cutTime(event, knownAt);
        while (next != null && next.timeMs() < at) {
          next = emitGroup(next, rows);
          waitFor = tick;
        }
        if (waitFor > 0) {
          TickGate.of(gate.id()).await(waitFor, GATE_OPENING);
          waitFor = 0;
        }
        emit(event);
      }
      while (next != null) {
        next = emitGroup(next, rows);
      }
    }
  }

  /** Emit the rows of {@code first}'s time (after a marker, with a gate); return the next row of a later time. */
  private Label emitGroup(Label first, BufferedReader labels) throws IOException {
    if (gate != null) {
      emit(SourceEvent.endOfTick(++tick));
    }
    Label row = first;
    while (row != null && row.timeMs() == first.timeMs()) {
      SourceEvent label = new SourceEvent(null, null, row.timeMs(), 0, row.json());
      label.stream = TrainingSetPreparer.LABELS_TABLE;
      emit(label);
      row = Label.read(labels);
    }
    return row;
  }

  private void emit(SourceEvent element) {
    long at = ordinal++;
    output.collect(new StreamRecord<>(element, at));
    output.emitWatermark(new Watermark(at));
  }

  /** One row of the labels file in time order: its time and JSON object. */
  private record Label(long timeMs, String json) {
    static Label read(BufferedReader in) throws IOException {
      String line = in.readLine();
      if (line == null) {
        return null;
      }
      int tab = line.indexOf('\t');
      return new Label(Long.parseLong(line, 0, tab, 10), line.substring(tab + 1));
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (sorter != null) {
        sorter.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      super.close();
    }
  }
}
