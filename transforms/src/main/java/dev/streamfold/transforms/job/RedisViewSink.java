package dev.streamfold.transforms.job;

import dev.streamfold.ledger.MessageIdText;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * The view sink (Sink V2): buffers the row changes between two checkpoint barriers, last change per
 * key winning, and commits them at the barrier ({@code flush}) together with the position the
 * {@link PositionTracker} emitted before that barrier, in one Redis transaction. Rows are whole-row
 * upserts of the aggregate state, so a replay after a restore from the last completed checkpoint
 * rewrites the same values. Runs with parallelism 1 (the position is one vector per view).
 */
public final class RedisViewSink implements Sink<ViewChange> {
  private static final long serialVersionUID = 1L;

  private final String redisUri;
  private final String tenant;
  private final String view;
  private final int version;
  private final String[] columns;
  private final String backfillTargetMessageId;
  private final long backfillTargetEvents;

  /**
   * Create the sink of one view version.
   *
   * @param redisUri Redis URI
   * @param name the view
   * @param version the version this job fills
   * @param columns result column names in order
   * @param backfillTargetMessageId latest message ID text when the job started, "" when the stream was empty
   * @param backfillTargetEvents events in the stream when the job started
   */
  public RedisViewSink(String redisUri, ViewName name, int version, List<String> columns,
      String backfillTargetMessageId, long backfillTargetEvents) {
    this.redisUri = redisUri;
    this.tenant = name.tenant();
    this.view = name.view();
    this.version = version;
    this.columns = columns.toArray(new String[0]);
    this.backfillTargetMessageId = backfillTargetMessageId;
    this.backfillTargetEvents = backfillTargetEvents;
  }

  @Override
  public SinkWriter<ViewChange> createWriter(WriterInitContext context) {
    return new Writer();
  }

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<ViewChange> createWriter(InitContext context) {
    return new Writer();
  }

  /**
   * Decide the phase after a commit at {@code position}.
   *
   * @param position last applied message IDs (text), comma-separated; "" when none
   * @param target backfill target message ID text; "" when the stream was empty at start
   * @return LIVE when the position has reached the target in the target's partition, else BACKFILLING
   */
  static ViewPhase phase(String position, String target) {
    if (target.isEmpty()) {
      return ViewPhase.LIVE;
    }
    MessageIdText goal = MessageIdText.parse(target);
    if (position.isEmpty()) {
      return ViewPhase.BACKFILLING;
    }
    for (String id : position.split(",")) {
      MessageIdText at = MessageIdText.parse(id);
      if (at.partition() == goal.partition() && at.compareTo(goal) >= 0) {
        return ViewPhase.LIVE;
      }
    }
    return ViewPhase.BACKFILLING;
  }

  private final class Writer implements SinkWriter<ViewChange> {
    private final ViewName name = new ViewName(tenant, view);
    private final ViewStore store = ViewStore.connect(redisUri);
    private final ViewWriter writer = store.writer(name, version);
    private final Map<String, Map<String, String>> upserts = new LinkedHashMap<>();
    private final Set<String> deletes = new LinkedHashSet<>();
    private ViewChange progress;
    private String committedPosition;
    private long committedEvents = -1;
    private boolean live;

    @Override
    public void write(ViewChange change, Context context) {
      switch (change.kind) {
        case ViewChange.UPSERT -> {
          deletes.remove(change.key);
          Map<String, String> row = new HashMap<>();
          for (int i = 0; i < columns.length; i++) {
            if (change.values[i] != null) {
              row.put(columns[i], change.values[i]);
            }
          }
          upserts.put(change.key, orderedRow(row));
        }
        case ViewChange.DELETE -> {
          upserts.remove(change.key);
          deletes.add(change.key);
        }
        default -> progress = change;
      }
    }

    private Map<String, String> orderedRow(Map<String, String> row) {
      Map<String, String> ordered = new LinkedHashMap<>();
      for (String column : columns) {
        String value = row.get(column);
        if (value != null) {
          ordered.put(column, value);
        }
      }
      return ordered;
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      if (progress == null && upserts.isEmpty() && deletes.isEmpty()) {
        return;
      }
      String position = progress == null ? (committedPosition == null ? "" : committedPosition) : progress.position;
      long events = progress == null ? Math.max(0, committedEvents) : progress.eventsApplied;
      if (upserts.isEmpty() && deletes.isEmpty() && position.equals(committedPosition) && events == committedEvents) {
        return;
      }
      ViewPhase phase = live ? ViewPhase.LIVE : phase(position, backfillTargetMessageId);
      List<String> positions = position.isEmpty() ? List.of() : List.of(position.split(","));
      writer.commit(upserts, new ArrayList<>(deletes), new ViewWriter.Progress(phase, events, positions,
          backfillTargetEvents, backfillTargetMessageId), System.currentTimeMillis());
      upserts.clear();
      deletes.clear();
      committedPosition = position;
      committedEvents = events;
      if (phase == ViewPhase.LIVE && !live) {
        store.promote(name, version);
        live = true;
      }
    }

    @Override
    public void close() {
      writer.close();
      store.close();
    }
  }
}
