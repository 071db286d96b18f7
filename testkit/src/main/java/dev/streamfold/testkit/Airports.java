package dev.streamfold.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;

/**
 * The real airports data set ({@code vega-datasets@3.2.1}, {@code data/airports.csv}: 3,376 US airports),
 * committed as {@code fixtures/airports.csv.gz}: the other side of the flights in tests of views over several
 * streams (a flight's {@code origin} is an airport's {@code iata}).
 */
public final class Airports {
  /** Columns of the airports stream, as {@code name:TYPE}. */
  public static final List<String> COLUMNS = List.of("iata:STRING", "name:STRING", "city:STRING", "state:STRING",
      "country:STRING", "latitude:DOUBLE", "longitude:DOUBLE");

  private Airports() {}

  /**
   * One airport.
   *
   * @param iata the airport code (the event key)
   * @param name its name
   * @param city its city
   * @param state its state (two letters; some are blank or "NA" in the data set)
   * @param country its country
   * @param latitude degrees
   * @param longitude degrees
   */
  public record Airport(String iata, String name, String city, String state, String country, double latitude,
      double longitude) {
    /** The payload JSON object. */
    public String json() {
      return "{\"iata\":" + quote(iata) + ",\"name\":" + quote(name) + ",\"city\":" + quote(city) + ",\"state\":"
          + quote(state) + ",\"country\":" + quote(country) + ",\"latitude\":" + latitude + ",\"longitude\":"
          + longitude + "}";
    }

    /** This airport in another state (a correction appended later). */
    public Airport inState(String newState) {
      return new Airport(iata, name, city, newState, country, latitude, longitude);
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /**
   * Load every airport.
   *
   * @return 3,376 airports in the data set's order
   */
  public static List<Airport> load() {
    try (InputStream in = new GZIPInputStream(Airports.class.getResourceAsStream("/fixtures/airports.csv.gz"));
         Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
      List<Airport> airports = new ArrayList<>();
      for (CSVRecord r : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader)) {
        airports.add(new Airport(r.get("iata"), r.get("name"), r.get("city"), r.get("state"), r.get("country"),
            Double.parseDouble(r.get("latitude")), Double.parseDouble(r.get("longitude"))));
      }
      return airports;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
