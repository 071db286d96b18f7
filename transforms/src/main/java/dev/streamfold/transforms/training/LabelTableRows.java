package dev.streamfold.transforms.training;

import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;

/**
 * The rows of a labels file's table on the clock of {@link EventTimeOrder}: one row per element, so that the event
 * projection gives the point-in-time join one record per element (its ledger clock): a label row's own values, and
 * for every event of the streams read a row whose file columns are null ({@link TrainingSetPreparer#LABEL_ROW_COLUMN}
 * null too, so not a label) with the event's time and message ID. End-of-tick markers give none.
 */
final class LabelTableRows extends AbstractStreamOperator<Row> implements OneInputStreamOperator<SourceEvent, Row> {
  private static final long serialVersionUID = 1L;

  private final PayloadParser parser;
  private transient StreamRecord<Row> reuse;

  /** @param parser the parser of the labels table's columns (the file's and the label-row flag) */
  LabelTableRows(PayloadParser parser) {
    this.parser = parser;
    setChainingStrategy(ChainingStrategy.ALWAYS);
  }

  @Override
  public void open() throws Exception {
    super.open();
    reuse = new StreamRecord<>(null);
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (event.endOfTick) {
      return;
    }
    SourceEvent row = event;
    if (!TrainingSetPreparer.LABELS_TABLE.equals(event.stream)) {
      row = new SourceEvent(event.messageId, null, event.eventTimeMs, 0, "{}");
    }
    output.collect(reuse.replace(parser.convert(row, true), element.getTimestamp()));
  }
}
