package dev.streamfold.examples;

import dev.streamfold.transforms.fold.Column;
import dev.streamfold.transforms.fold.Event;
import dev.streamfold.transforms.fold.Transformation;
import java.util.Arrays;
import java.util.Map;

/**
 * The last {@value #KEEP} delays (minutes) per origin airport as a list column, newest last, in ledger
 * order, and how many flights of the origin had a delay value. A flight without a delay value is left
 * out; an origin's row appears with its first delayed-or-not flight.
 *
 * <p>The state keeps the delays in a {@code long[]}: Flink serializes primitive arrays with its own
 * serializer, while a {@code List<Long>} would need Kryo, which Streamfold refuses (Kryo's bytes are not
 * guaranteed to restore across versions).
 *
 * <pre>
 * streamfold transform create last_delays --stream flights \
 *     --jar examples/target/streamfold-examples-0.1.0-SNAPSHOT.jar --class dev.streamfold.examples.LastDelays
 * redis-cli -p PORT -a TOKEN GET last_delays:ATL      # {"origin":"ATL","last_delays":[3,-2,41,0,12],"flights":...}
 * </pre>
 */
public final class LastDelays implements Transformation<LastDelays.Recent> {
  /** Delays kept per origin. */
  public static final int KEEP = 5;

  /** The state of one origin: a Flink POJO. */
  public static final class Recent {
    /** The last delays, oldest first, at most {@value LastDelays#KEEP}. */
    public long[] delays = new long[0];
    /** Flights of the origin with a delay value. */
    public long flights;

    public Recent() {}
  }

  @Override
  public String keyColumn() {
    return "origin";
  }

  @Override
  public java.util.List<Column> columns() {
    return java.util.List.of(Column.array("last_delays", "BIGINT"), Column.bigint("flights"));
  }

  @Override
  public String key(Event event) {
    return event.longValue("delay") != null ? event.string("origin") : null;
  }

  @Override
  public Recent initial() {
    return new Recent();
  }

  @Override
  public Recent apply(Recent state, Event event) {
    long delay = event.longValue("delay");
    long[] kept = Arrays.copyOfRange(state.delays, Math.max(0, state.delays.length - (KEEP - 1)), state.delays.length);
    state.delays = Arrays.copyOf(kept, kept.length + 1);
    state.delays[kept.length] = delay;
    state.flights++;
    return state;
  }

  @Override
  public Map<String, ?> row(Recent state) {
    return Map.of("last_delays", state.delays, "flights", state.flights);
  }

  @Override
  public Class<Recent> stateClass() {
    return Recent.class;
  }
}
