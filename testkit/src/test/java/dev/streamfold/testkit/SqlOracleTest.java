package dev.streamfold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** DuckDB, the oracle of views over several streams, agrees with plain group-bys over the real data sets. */
class SqlOracleTest {
  private static List<List<?>> flightRows(List<Flights.Flight> flights) {
    List<List<?>> rows = new ArrayList<>();
    flights.forEach(f -> rows.add(List.of(f.date(), f.delay(), f.distance(), f.origin(), f.destination())));
    return rows;
  }

  private static List<List<?>> airportRows(List<Airports.Airport> airports) {
    List<List<?>> rows = new ArrayList<>();
    airports.forEach(a -> rows.add(List.of(a.iata(), a.name(), a.city(), a.state(), a.country(), a.latitude(),
        a.longitude())));
    return rows;
  }

  @Test
  void theAirportsFixtureIsTheWholeDataSet() {
    List<Airports.Airport> airports = Airports.load();
    assertThat(airports).hasSize(3376);
    assertThat(airports.get(0)).isEqualTo(new Airports.Airport("00M", "Thigpen", "Bay Springs", "MS", "USA",
        31.95376472, -89.23450472));
    assertThat(airports).filteredOn(a -> a.iata().equals("35A")).singleElement()
        .satisfies(a -> assertThat(a.name()).isEqualTo("Union County, Troy Shelton"));
  }

  @Test
  void delaysByOriginAgreeWithTheDemosGroupBy() {
    List<Flights.Flight> flights = Flights.load(50_000);
    try (SqlOracle oracle = SqlOracle.open()) {
      Map<String, Map<String, Object>> rows = oracle.table("flights", Flights.COLUMNS, flightRows(flights))
          .rows(Flights.DELAYS_BY_ORIGIN_SQL, "origin");
      Map<String, Flights.Delays> expected = Flights.delaysByOrigin(flights);
      assertThat(rows.keySet()).isEqualTo(expected.keySet());
      expected.forEach((origin, d) -> {
        assertThat(((Number) rows.get(origin).get("flights")).longValue()).isEqualTo(d.flights());
        assertThat(((Number) rows.get(origin).get("avg_delay")).doubleValue())
            .isCloseTo((double) d.delaySum() / d.flights(), within(1e-9));
      });
    }
  }

  @Test
  void delaysByStateOfFlightsJoinAirportsAgreeWithAPlainJoin() {
    List<Flights.Flight> flights = Flights.load(50_000);
    List<Airports.Airport> airports = Airports.load();
    Map<String, String> stateOf = new HashMap<>();
    airports.forEach(a -> stateOf.put(a.iata(), a.state()));
    Map<String, long[]> expected = new TreeMap<>();
    for (Flights.Flight f : flights) {
      String state = stateOf.get(f.origin());
      if (state != null) {
        long[] acc = expected.computeIfAbsent(state, s -> new long[2]);
        acc[0]++;
        acc[1] += f.delay();
      }
    }
    try (SqlOracle oracle = SqlOracle.open()) {
      Map<String, Map<String, Object>> rows = oracle.table("flights", Flights.COLUMNS, flightRows(flights))
          .table("airports", Airports.COLUMNS, airportRows(airports))
          .rows("SELECT a.state, COUNT(*) AS flights, SUM(f.delay) AS total_delay FROM flights f "
              + "JOIN airports a ON f.origin = a.iata GROUP BY a.state", "state");
      assertThat(rows.keySet()).isEqualTo(expected.keySet());
      expected.forEach((state, acc) -> {
        assertThat(((Number) rows.get(state).get("flights")).longValue()).as(state).isEqualTo(acc[0]);
        assertThat(((Number) rows.get(state).get("total_delay")).longValue()).as(state).isEqualTo(acc[1]);
      });
    }
  }
}
