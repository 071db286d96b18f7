package dev.streamfold.transforms.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.transforms.source.TickGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.operators.AbstractInput;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorV2;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.Input;
import org.apache.flink.streaming.api.operators.MultipleInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The point-in-time join of a training set, in ledger order, writing rows to the output file.
 *
 * <p><b>Ledger clock.</b> Upstream, the {@code PositionTracker} stamps each event with its sequence id
 * (its ordinal in the stream) and emits a watermark of that sequence id right after it. Every operator
 * on the way (Flink SQL's calculations and group aggregations, without mini-batches) forwards records and
 * watermarks of a channel in order, so on each input of this operator every record that arrives between
 * watermark {@code w} and the next was caused by the one event that follows {@code w}: its <i>rank</i> is
 * {@code w}. Input 1 carries exactly one record per event (the label projection over every event, with a
 * flag saying whether the event is a label); inputs 2.. carry the changelog of each feature view's SQL.
 *
 * <p><b>Join.</b> When the smallest watermark over all inputs reaches {@code W}, every record caused by an
 * event at or before {@code W} has arrived, so the buffered records of ranks below {@code W} are processed
 * in rank order; within one rank (one event) the event's own record first: a label event emits a row
 * with each feature's value as the feature views held it <i>before</i> that event (the event itself and
 * everything after it excluded); then the event's feature changes are applied. Buffers hold only the
 * records between watermarks; the feature state holds one row per entity and feature view. A record
 * whose rank has no event record, or two event records of one rank, mean the clock is broken, and the
 * job fails rather than write a wrong row.
 *
 * <p><b>Tick-clocked features.</b> When the job reads several streams in the tenant clock's order
 * ({@link ClockOrdinals}), each event and end-of-tick marker has its own rank, and a feature view that reads another
 * stream than the label stream (or several) is cut at ticks: its changes are held until the end of their tick (the
 * last input, after every record the tick caused) and applied then, so a label event sees such a view as it was at
 * the end of the tick before its own. Views over the label stream alone keep the per-event rule above. When a
 * {@link TickGate} is set, each completed tick is said to it: the source emits no
 * event of the next tick with label events before then, which keeps views with several inputs (joins) exact.
 *
 * <p>The file is written to a temporary name beside the output and renamed when the input ends; a
 * failed job leaves no output file. Progress ({@code events}, {@code rows}, {@code last_message_id}: the
 * last event folded, the exact end of the set's range) is written about every 500 ms to a JSON progress
 * file, and once more at the end.
 */
public final class PointInTimeJoin extends AbstractStreamOperatorV2<Void> implements MultipleInputStreamOperator<Void>,
    BoundedMultiInput {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TrainingSetPlan plan;
  private final int inputs;
  /** The input of the end-of-tick markers, or -1 on the one-stream ledger clock. */
  private final int tickEnds;
  /**
   * Per feature view cut at ticks: the last change of each row key in the current tick (only the last one counts
   * when the tick ends), so this holds at most one entry per row, however many events a tick covers.
   */
  private final List<Map<String, Row>> tickChanges = new ArrayList<>();
  private final long[] watermarks;
  private final List<ArrayDeque<Pending>> pending = new ArrayList<>();
  /** Per feature view: row key to the row's values and the event time (ms) of its last change. */
  private final List<Map<String, Versioned>> state = new ArrayList<>();
  private TrainingSetWriter writer;
  private Path temp;
  private long events;
  private long rows;
  private long lastEventRank = Long.MIN_VALUE;
  private String lastMessageId = "";
  private boolean eventSeen;
  private long currentEventTimeMs;
  private long lastProgressMs;
  private boolean finished;

  private record Pending(long rank, Row row) {}

  private record Versioned(Row row, long updatedAtMs) {}

  PointInTimeJoin(StreamOperatorParameters<Void> parameters, TrainingSetPlan plan) {
    super(parameters, 1 + plan.featureViews().size() + (plan.clock().ticks() ? 1 : 0));
    this.plan = plan;
    this.inputs = 1 + plan.featureViews().size() + (plan.clock().ticks() ? 1 : 0);
    this.tickEnds = plan.clock().ticks() ? inputs - 1 : -1;
    this.watermarks = new long[inputs];
    java.util.Arrays.fill(watermarks, Long.MIN_VALUE);
    for (int i = 0; i < inputs; i++) {
      pending.add(new ArrayDeque<>());
    }
    for (int i = 0; i < plan.featureViews().size(); i++) {
      state.add(new HashMap<>());
      tickChanges.add(new HashMap<>());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    Path out = Path.of(plan.outputFile());
    Files.createDirectories(out.toAbsolutePath().getParent());
    temp = inProgress(out);
    Files.deleteIfExists(temp);
    writer = TrainingSetWriter.open(plan.format(), temp, plan.columns());
    if (plan.clock().gate() != null) {
      TickGate.of(plan.clock().gate()).opened();
    }
  }

  /**
   * The temporary name a build writes its output under until it is complete: {@code .<name>.inprogress} beside it.
   *
   * @param output the output file
   * @return the temporary file
   */
  static Path inProgress(Path output) {
    return output.resolveSibling("." + output.getFileName() + ".inprogress");
  }

  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public List<Input> getInputs() {
    List<Input> list = new ArrayList<>();
    for (int i = 0; i < inputs; i++) {
      int index = i;
      list.add(new AbstractInput<Row, Void>(this, i + 1) {
        @Override
        public void processElement(StreamRecord<Row> element) {
          pending.get(index).add(new Pending(watermarks[index], element.getValue()));
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
          watermarks[index] = Math.max(watermarks[index], mark.getTimestamp());
          drain(min(watermarks));
          super.processWatermark(mark);
        }
      });
    }
    return list;
  }

  private static long min(long[] values) {
    long m = Long.MAX_VALUE;
    for (long v : values) {
      m = Math.min(m, v);
    }
    return m;
  }

  /** Process every buffered record of rank below {@code upTo}, in rank order, event record first. */
  private void drain(long upTo) throws IOException {
    while (true) {
      int next = -1;
      long rank = Long.MAX_VALUE;
      for (int i = 0; i < inputs; i++) {
        Pending head = pending.get(i).peek();
        if (head != null && head.rank() < upTo && head.rank() < rank) {
          rank = head.rank();
          next = i; // ties go to the lowest input: the event's own record (input 1) first
        }
      }
      if (next < 0) {
        break;
      }
      Pending p = pending.get(next).poll();
      if (next == 0) {
        onEvent(p);
      } else if (next == tickEnds) {
        onTickEnd(p);
      } else {
        onFeatureChange(next - 1, p);
      }
    }
    long now = System.currentTimeMillis();
    if (now - lastProgressMs >= 500) {
      lastProgressMs = now;
      writeProgress(false);
    }
  }

  /** Input 1: one record per event: entity, label, is_label, event time, message ID, join keys. */
  private void onEvent(Pending p) throws IOException {
    if (eventSeen && p.rank() == lastEventRank) {
      throw new IllegalStateException("ledger clock broken: two events between watermarks " + p.rank()
          + " and the next; refusing to write rows that may leak");
    }
    eventSeen = true;
    lastEventRank = p.rank();
    events++;
    Row r = p.row();
    String messageId = (String) r.getField(plan.messageId());
    if (messageId != null) { // a label from a file has none
      lastMessageId = messageId;
    }
    currentEventTimeMs = ((LocalDateTime) r.getField(plan.eventTime())).toInstant(ZoneOffset.UTC).toEpochMilli();
    if (!Boolean.TRUE.equals(r.getField(plan.isLabel()))) {
      return;
    }
    List<FeatureSpec> features = plan.features();
    int leading = plan.leading();
    Object[] out = new Object[leading + features.size()];
    for (int c = 0; c < leading; c++) {
      out[c] = TrainingSetWriter.normalize(plan.columns().types().get(c), r.getField(c));
    }
    for (int f = 0; f < features.size(); f++) {
      int view = plan.featureView(f);
      Object key = r.getField(plan.joins() + plan.joinIndex(f));
      Versioned held = key == null ? null : state.get(view).get(labelKey(view, key));
      Object value = null;
      if (held != null && (features.get(f).ttlMs() < 0
          || currentEventTimeMs - held.updatedAtMs() <= features.get(f).ttlMs())) {
        value = held.row().getField(plan.featureColumnIndex(f));
      }
      out[leading + f] = TrainingSetWriter.normalize(plan.columns().types().get(leading + f), value);
    }
    writer.write(out);
    rows++;
  }

  /**
   * The row key a label event's join value names in a feature view: for a view keyed by one column the value
   * as that column's key part (escaped as the view's row keys are); for a view keyed by several, the value
   * as text, which is then the whole row key.
   */
  private String labelKey(int view, Object joinValue) {
    String text = dev.streamfold.transforms.job.ChangelogToViewChange.text(joinValue);
    if (plan.featureKeyIndexes().get(view).length != 1) {
      return text;
    }
    StringBuilder key = new StringBuilder();
    dev.streamfold.views.ViewSchema.appendKeyPart(key, text);
    return key.toString();
  }

  /**
   * Inputs 2..: a feature view's changelog, applied after the rows of the event that caused it, or (a tick-clocked
   * view) at the end of its tick.
   */
  private void onFeatureChange(int view, Pending p) {
    if (plan.clock().tickViews()[view]) {
      tickChanges.get(view).put(rowKey(view, p.row()), p.row());
      return;
    }
    if (!eventSeen || p.rank() != lastEventRank) {
      throw new IllegalStateException("ledger clock broken: a change of feature view "
          + plan.featureViews().get(view) + " at rank " + p.rank() + " has no event; refusing to write rows that may leak");
    }
    apply(view, rowKey(view, p.row()), p.row());
  }

  /** The last input: the end of a tick; its tick-clocked changes are applied now, after every label event of it. */
  private void onTickEnd(Pending p) {
    for (int view = 0; view < tickChanges.size(); view++) {
      Map<String, Row> changes = tickChanges.get(view);
      for (Map.Entry<String, Row> change : changes.entrySet()) {
        apply(view, change.getKey(), change.getValue());
      }
      changes.clear();
    }
    if (plan.clock().gate() != null) {
      TickGate.of(plan.clock().gate()).completed((Long) p.row().getField(0));
    }
  }

  /** The row key of a change of a feature view, as the view job writes it ({@code ChangelogToViewChange}). */
  private String rowKey(int view, Row r) {
    StringBuilder key = new StringBuilder();
    int[] keys = plan.featureKeyIndexes().get(view);
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) {
        key.append(dev.streamfold.views.ViewSchema.KEY_SEPARATOR);
      }
      Object part = r.getField(keys[i]);
      dev.streamfold.views.ViewSchema.appendKeyPart(key, part == null ? null
          : dev.streamfold.transforms.job.ChangelogToViewChange.text(part));
    }
    return key.toString();
  }

  /** Apply one change of a feature view's changelog to the view's state, as its view job would. */
  private void apply(int view, String key, Row r) {
    RowKind kind = r.getKind();
    if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
      state.get(view).put(key, new Versioned(r, currentEventTimeMs));
    } else {
      // DELETE, and UPDATE_BEFORE as the view job applies it (ChangelogToViewChange): a retraction. An UPDATE_AFTER
      // usually follows for the same key in the same event and puts the row back, but not always: a filter over
      // the aggregates (HAVING) drops the after-image of an update that leaves the filter, and then the row is gone.
      state.get(view).remove(key);
    }
  }

  @Override
  public void endInput(int inputId) {
    // the final watermark (Long.MAX_VALUE) of each input drains its records
  }

  @Override
  public void finish() throws Exception {
    drain(Long.MAX_VALUE);
    writer.close();
    writer = null;
    Files.move(temp, Path.of(plan.outputFile()), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    finished = true;
    writeProgress(true);
    super.finish();
  }

  private void writeProgress(boolean done) {
    try {
      Path progress = Path.of(plan.progressFile());
      Path tmp = progress.resolveSibling(progress.getFileName() + ".tmp");
      Map<String, Object> fields = new java.util.LinkedHashMap<>();
      fields.put("events", events);
      fields.put("rows", rows);
      fields.put("last_message_id", lastMessageId);
      fields.put("done", done);
      Files.writeString(tmp, JSON.writeValueAsString(fields));
      Files.move(tmp, progress, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (writer != null) {
        writer.close();
      }
    } finally {
      if (!finished && temp != null) {
        Files.deleteIfExists(temp);
      }
      if (plan.clock().gate() != null) {
        TickGate.close(plan.clock().gate());
      }
      super.close();
    }
  }
}
