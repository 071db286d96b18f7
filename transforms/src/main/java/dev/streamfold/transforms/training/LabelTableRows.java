package dev.streamfold.transforms.training;

import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;

/**
 * The rows of a table of labels on the clock of {@link EventTimeOrder}: one row per element, so that the event
 * projection gives the point-in-time join one record per element (its ledger clock). An element of the labels' stream
 * (a labels file's row, or an event of the label stream) gives its own values with the flag
 * {@link TrainingSetPreparer#LABEL_ROW_COLUMN} true; every other event a row whose columns are null (the flag too, so
 * not a label) with the event's time and message ID. End-of-tick markers give none.
 */
final class LabelTableRows extends AbstractStreamOperator<Row> implements OneInputStreamOperator<SourceEvent, Row> {
  private static final long serialVersionUID = 1L;

  private final PayloadParser parser;
  private final String labelsOf;
  private final int flag;
  private transient StreamRecord<Row> reuse;

  /**
   * @param parser the parser of the table's columns (the labels' columns, then the flag)
   * @param labelsOf the stream of the elements that are labels: {@link TrainingSetPreparer#LABELS_TABLE} for a labels
   *     file's rows, else the label stream
   * @param flag the flag's index among the parser's columns
   */
  LabelTableRows(PayloadParser parser, String labelsOf, int flag) {
    this.parser = parser;
    this.labelsOf = labelsOf;
    this.flag = flag;
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
    Row row;
    if (labelsOf.equals(event.stream)) {
      row = parser.convert(event, true);
      row.setField(flag, true);
    } else {
      row = parser.convert(new SourceEvent(event.messageId, null, event.eventTimeMs, 0, "{}"), true);
    }
    output.collect(reuse.replace(row, element.getTimestamp()));
  }
}
