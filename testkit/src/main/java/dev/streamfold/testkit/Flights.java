package dev.streamfold.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The first 200,000 rows of the real flights data set ({@code vega-datasets@3.2.1},
 * {@code data/flights-3m.parquet}), committed as {@code fixtures/flights-200k.csv.gz} (cut with
 * {@code fixtures/flights.cut.mjs}), and the plain group-by oracle of the demo's transformation.
 */
public final class Flights {
  /** Columns of the flights stream, as {@code name:TYPE}. */
  public static final List<String> COLUMNS = List.of("date:TIMESTAMP", "delay:INT", "distance:INT",
      "origin:STRING", "destination:STRING");

  /** The demo transformation. */
  public static final String DELAYS_BY_ORIGIN_SQL = "SELECT origin, COUNT(*) AS flights, "
      + "AVG(CAST(delay AS DOUBLE)) AS avg_delay, SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed "
      + "FROM flights GROUP BY origin";

  private Flights() {}

  /**
   * One flight.
   *
   * @param date local date-time text, ISO-8601 (seconds)
   * @param delay departure delay, minutes (negative when early)
   * @param distance miles
   * @param origin origin airport code (the event key)
   * @param destination destination airport code
   */
  public record Flight(String date, int delay, int distance, String origin, String destination) {
    /** The payload JSON object. */
    public String json() {
      return "{\"date\":\"" + date + "\",\"delay\":" + delay + ",\"distance\":" + distance
          + ",\"origin\":\"" + origin + "\",\"destination\":\"" + destination + "\"}";
    }

    /** Event time: the date as UTC epoch milliseconds. */
    public long eventTimeMs() {
      return java.time.LocalDateTime.parse(date).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
    }
  }

  /** Rows in the fixture. */
  public static final int FIXTURE_ROWS = 200_000;

  /**
   * Load the first 21,000 flights of the fixture.
   *
   * @return 21,000 flights in ledger order
   */
  public static List<Flight> load() {
    return load(21_000);
  }

  /**
   * Load the first flights of the fixture.
   *
   * @param rows how many, at most {@link #FIXTURE_ROWS}
   * @return the flights in ledger order
   * @throws IllegalArgumentException if {@code rows} exceeds the fixture
   */
  public static List<Flight> load(int rows) {
    if (rows < 0 || rows > FIXTURE_ROWS) {
      throw new IllegalArgumentException("the fixture holds " + FIXTURE_ROWS + " rows, asked for " + rows);
    }
    List<Flight> flights = new ArrayList<>(rows);
    try (InputStream in = new java.util.zip.GZIPInputStream(Flights.class.getResourceAsStream("/fixtures/flights-200k.csv.gz"));
         BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      reader.readLine();
      String line;
      while (flights.size() < rows && (line = reader.readLine()) != null) {
        String[] f = line.split(",");
        flights.add(new Flight(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], f[4]));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return flights;
  }

  /**
   * One oracle row of {@link #DELAYS_BY_ORIGIN_SQL}.
   *
   * @param flights count of flights
   * @param delaySum sum of delays, minutes
   * @param delayed flights with delay >= 15 minutes
   */
  public record Delays(long flights, long delaySum, long delayed) {
    /** Average delay in minutes. */
    public double avgDelay() {
      return (double) delaySum / flights;
    }
  }

  /**
   * Compute {@link #DELAYS_BY_ORIGIN_SQL} by a plain in-test group-by.
   *
   * @param flights the flights
   * @return origin to its row
   */
  public static Map<String, Delays> delaysByOrigin(List<Flight> flights) {
    Map<String, long[]> acc = new TreeMap<>();
    for (Flight f : flights) {
      long[] a = acc.computeIfAbsent(f.origin(), k -> new long[3]);
      a[0]++;
      a[1] += f.delay();
      if (f.delay() >= 15) {
        a[2]++;
      }
    }
    Map<String, Delays> result = new TreeMap<>();
    acc.forEach((k, a) -> result.put(k, new Delays(a[0], a[1], a[2])));
    return result;
  }
}
