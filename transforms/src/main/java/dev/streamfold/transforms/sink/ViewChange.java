package dev.streamfold.transforms.sink;

/**
 * What the view sink receives: a row upsert, a row delete, or the source's progress at a checkpoint
 * barrier. A Flink POJO.
 */
public class ViewChange {
  public static final byte UPSERT = 0;
  public static final byte DELETE = 1;
  public static final byte PROGRESS = 2;

  /** {@link #UPSERT}, {@link #DELETE} or {@link #PROGRESS}. */
  public byte kind;
  /** Row key (UPSERT, DELETE). */
  public String key;
  /** Column values as text in result order, null for SQL NULL (UPSERT). */
  public String[] values;
  /** Last applied message ID text per partition, comma-separated (PROGRESS). */
  public String position;
  /** Events applied so far (PROGRESS). */
  public long eventsApplied;
  /**
   * Events read with an event time below the watermark at that moment, so far (PROGRESS; event-time
   * jobs only): an upper bound on the events a closed window did not count.
   */
  public long eventsBehindWatermark;

  public ViewChange() {}

  /** A row upsert: the row's key and its column values as text in result order (null for SQL NULL). */
  public static ViewChange upsert(String key, String[] values) {
    ViewChange c = new ViewChange();
    c.kind = UPSERT;
    c.key = key;
    c.values = values;
    return c;
  }

  /** A row delete. */
  public static ViewChange delete(String key) {
    ViewChange c = new ViewChange();
    c.kind = DELETE;
    c.key = key;
    return c;
  }

  /** The source's progress: the position applied (message ID text per partition, joined by ','), events applied. */
  public static ViewChange progress(String position, long eventsApplied) {
    return progress(position, eventsApplied, 0);
  }

  /** The source's progress, with the events read behind the watermark so far (event-time jobs). */
  public static ViewChange progress(String position, long eventsApplied, long eventsBehindWatermark) {
    ViewChange c = new ViewChange();
    c.kind = PROGRESS;
    c.position = position;
    c.eventsApplied = eventsApplied;
    c.eventsBehindWatermark = eventsBehindWatermark;
    return c;
  }
}
