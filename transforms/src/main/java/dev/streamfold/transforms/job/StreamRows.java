package dev.streamfold.transforms.job;

import dev.streamfold.transforms.source.EventConverter;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.Objects;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * One stream's rows of a job that reads several streams from one source: the events of {@code stream}, each
 * converted to a SQL row, in the order they come (the clock's order, so the stream's own ledger order).
 *
 * @param <OUT> the row type
 */
final class StreamRows<OUT> implements FlatMapFunction<SourceEvent, OUT> {
  private static final long serialVersionUID = 1L;

  private final String stream;
  private final EventConverter<OUT> converter;

  /**
   * @param stream the stream whose events become rows
   * @param converter turns one of its events into a row
   */
  StreamRows(String stream, EventConverter<OUT> converter) {
    this.stream = Objects.requireNonNull(stream, "stream");
    this.converter = Objects.requireNonNull(converter, "converter");
  }

  @Override
  public void flatMap(SourceEvent event, Collector<OUT> out) {
    if (stream.equals(event.stream)) {
      out.collect(converter.convert(event, false));
    }
  }
}
