package dev.streamfold.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Event;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real flights data set as events, exactly as {@code streamfold ingest flights FILE --key origin --time
 * date} makes them (the CLI's own Parquet reader and event mapper).
 */
final class FlightEvents {
  static final String STREAM = "flights";
  static final List<String> COLUMNS = List.of("date:TIMESTAMP", "delay:INT", "distance:INT", "origin:STRING",
      "destination:STRING");
  static final String DELAYS_BY_ORIGIN_SQL_TEMPLATE = "SELECT origin, COUNT(*) AS flights, "
      + "AVG(CAST(delay AS DOUBLE)) AS avg_delay, SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed "
      + "FROM %s GROUP BY origin";

  private FlightEvents() {}

  /** Open the Parquet file as a source of events; {@code next()} returns null after the last one. */
  static Source open(Path parquet) throws IOException {
    return new Source(RowReader.open(parquet, FileFormat.PARQUET, Map.of()));
  }

  /** Read the first {@code limit} flights of the file into memory. */
  static List<Event> read(Path parquet, long limit) throws IOException {
    List<Event> events = new ArrayList<>();
    try (Source source = open(parquet)) {
      Event e;
      while (events.size() < limit && (e = source.next()) != null) {
        events.add(e);
      }
    }
    return events;
  }

  /** Events from a Parquet file, one per row. */
  static final class Source implements AutoCloseable {
    private final RowReader reader;
    private final EventMapper mapper = new EventMapper("origin", "date");

    Source(RowReader reader) {
      this.reader = reader;
    }

    Event next() throws IOException {
      ObjectNode row = reader.next();
      return row == null ? null : mapper.toEvent(row, reader.rowNumber(), reader.where());
    }

    long totalRows() {
      return reader.totalRows();
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }
  }
}
