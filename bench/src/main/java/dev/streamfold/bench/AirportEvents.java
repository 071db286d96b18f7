package dev.streamfold.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The benchmarks' second stream: {@code airports} from vega-datasets' {@code airports.csv}, appended once. */
final class AirportEvents {
  /** The stream's name. */
  static final String STREAM = "airports";
  /** Its columns. */
  static final List<String> COLUMNS = List.of("iata:STRING", "name:STRING", "city:STRING", "state:STRING",
      "country:STRING", "latitude:DOUBLE", "longitude:DOUBLE");

  private AirportEvents() {}

  /**
   * Make sure the {@code airports} stream holds the file's airports (appended, keyed by iata, when the stream is
   * empty).
   *
   * @param env the benchmark's environment (tenant)
   * @param sf the client
   * @param csv the airports CSV
   * @param tag the benchmark's log prefix
   * @return the file's iata codes
   */
  static Set<String> ensureLoaded(BenchEnv env, Streamfold sf, Path csv, String tag) throws Exception {
    return ensureLoaded(env, sf, csv, tag, STREAM, 0);
  }

  /**
   * Make sure a stream holds the file's airports (appended, keyed by iata, when the stream is empty).
   *
   * @param env the benchmark's environment (tenant)
   * @param sf the client
   * @param csv the airports CSV
   * @param tag the benchmark's log prefix
   * @param stream the stream
   * @param eventTimeMs every airport's event time (epoch ms), or 0 for the time of the append
   * @return the file's iata codes
   */
  static Set<String> ensureLoaded(BenchEnv env, Streamfold sf, Path csv, String tag, String stream, long eventTimeMs)
      throws Exception {
    sf.ensureStream(stream, COLUMNS);
    Set<String> iatas = new HashSet<>();
    List<Event> airports = new ArrayList<>();
    Map<String, String> types = new LinkedHashMap<>();
    COLUMNS.forEach(c -> types.put(c.split(":")[0], c.split(":")[1]));
    try (RowReader reader = RowReader.open(csv, FileFormat.CSV, types)) {
      EventMapper mapper = new EventMapper("iata", null);
      ObjectNode row;
      while ((row = reader.next()) != null) {
        Event event = mapper.toEvent(row, reader.rowNumber(), reader.where());
        airports.add(eventTimeMs == 0 ? event : event.toBuilder().setEventTimeMs(eventTimeMs).build());
        iatas.add(row.get("iata").asText());
      }
    }
    if (sf.stream(stream).orElseThrow().getEventCount() == 0) {
      for (int from = 0; from < airports.size(); from += 1_000) {
        sf.ingestBlocking().append(AppendRequest.newBuilder().setTenant(env.tenant).setStream(stream)
            .addAllEvents(airports.subList(from, Math.min(airports.size(), from + 1_000))).build());
      }
      System.out.printf("%s appended %,d airports from %s to %s%n", tag, airports.size(), csv, stream);
    }
    return iatas;
  }
}
