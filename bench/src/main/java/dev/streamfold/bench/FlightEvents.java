package dev.streamfold.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.cli.ingest.StreamIngester;
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

  /**
   * Make sure a stream of the flights' columns holds at least {@code wanted} events: create it when missing and
   * append the missing rows of the Parquet file ({@code --flights}, default {@code <data dir>/cache/flights-3m.parquet})
   * over AppendStream with the CLI's own ingester. Row i of the file is the stream's event i.
   *
   * @param report where the load's figures go (detail "load"), when it appends anything
   * @return the stream's info after the load
   */
  static StreamInfo ensureLoaded(BenchEnv env, Streamfold sf, String stream, long wanted, Report report) throws Exception {
    String tag = "[" + report.benchmark() + "]";
    sf.ensureStream(stream, COLUMNS);
    StreamInfo info = sf.stream(stream).orElseThrow();
    long have = info.getEventCount();
    if (have < wanted) {
      Path parquet = Path.of(env.get("flights", env.dataDir.resolve("cache/flights-3m.parquet").toString()));
      System.out.printf("%s stream %s holds %,d events; appending rows %,d..%,d of %s over AppendStream ...%n",
          tag, stream, have, have, wanted, parquet);
      try (Source source = open(parquet)) {
        for (long i = 0; i < have; i++) {
          source.next();
        }
        long[] remaining = {wanted - have};
        StreamIngester ingester = new StreamIngester(sf.ingestAsync(), env.tenant, stream,
            StreamIngester.DEFAULT_BATCH_EVENTS, StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS);
        StreamIngester.Result result = ingester.ingest(() -> remaining[0]-- > 0 ? source.next() : null, acked -> {});
        System.out.printf("%s appended %,d flights to %s in %.1f s (%,.0f events/s, Parquet decoding included)%n",
            tag, result.events(), stream, result.elapsedNanos() / 1e9, result.eventsPerSecond());
        report.detail("load" + (stream.equals(STREAM) ? "" : " of " + stream), Map.of("events", result.events(),
            "seconds", result.elapsedNanos() / 1e9, "eventsPerSecond", result.eventsPerSecond(),
            "path", "CLI StreamIngester (AppendStream, 2,000 per request)"));
      }
      info = sf.stream(stream).orElseThrow();
    } else if (have > wanted) {
      System.out.printf("%s note: stream %s holds %,d events (more than the %,d wanted)%n", tag, stream, have, wanted);
    }
    return info;
  }

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
