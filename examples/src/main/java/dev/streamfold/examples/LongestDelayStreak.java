package dev.streamfold.examples;

import dev.streamfold.transforms.fold.Column;
import dev.streamfold.transforms.fold.Event;
import dev.streamfold.transforms.fold.Transformation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The longest run of consecutive delayed flights per route, in ledger order: one row per
 * {@code origin-destination} with the longest streak so far, the current one, and the flight counts. A
 * flight is delayed when its {@code delay} is at least {@value #DELAYED_MINUTES} minutes (the FAA's
 * on-time threshold); a flight without a delay value neither extends nor breaks a streak. Flights without
 * an origin or a destination are left out.
 *
 * <pre>
 * streamfold transform create delay_streaks --stream flights \
 *     --jar examples/target/streamfold-examples-0.1.0-SNAPSHOT.jar --class dev.streamfold.examples.LongestDelayStreak
 * redis-cli -p PORT -a TOKEN HGETALL delay_streaks:ATL-ORD
 * </pre>
 */
public final class LongestDelayStreak implements Transformation<LongestDelayStreak.Streak> {
  /** A flight is delayed at this many minutes late or more (the FAA's 15-minute on-time threshold). */
  public static final int DELAYED_MINUTES = 15;

  /** The state of one route: a Flink POJO (public fields, no-argument constructor). */
  public static final class Streak {
    /** Delayed flights in a row, ending with the route's latest flight. */
    public int current;
    /** The longest such run so far. */
    public int longest;
    /** Flights of the route. */
    public long flights;
    /** Delayed flights of the route. */
    public long delayed;

    public Streak() {}
  }

  @Override
  public String keyColumn() {
    return "route";
  }

  @Override
  public List<Column> columns() {
    return List.of(Column.integer("longest_streak"), Column.integer("current_streak"), Column.bigint("flights"),
        Column.bigint("delayed"));
  }

  @Override
  public String key(Event event) {
    String origin = event.string("origin");
    String destination = event.string("destination");
    return origin == null || destination == null ? null : origin + "-" + destination;
  }

  @Override
  public Streak initial() {
    return new Streak();
  }

  @Override
  public Streak apply(Streak state, Event event) {
    state.flights++;
    Long delay = event.longValue("delay");
    if (delay != null) {
      if (delay >= DELAYED_MINUTES) {
        state.delayed++;
        state.current++;
        state.longest = Math.max(state.longest, state.current);
      } else {
        state.current = 0;
      }
    }
    return state;
  }

  @Override
  public Map<String, ?> row(Streak state) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("longest_streak", state.longest);
    row.put("current_streak", state.current);
    row.put("flights", state.flights);
    row.put("delayed", state.delayed);
    return row;
  }

  @Override
  public Class<Streak> stateClass() {
    return Streak.class;
  }
}
