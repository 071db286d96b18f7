package dev.streamfold.transforms.fold;

import java.util.List;
import java.util.Map;

/**
 * A transformation written in Java: a pure fold of a stream's events into one state per key, each
 * state shown as one row of the materialized view. It runs as the same kind of Flink job as a SQL
 * transformation (backfill from the earliest event, then tail; exactly-once view commits; replay into
 * virtual states; training-set features): the job keys events by {@link #key}, keeps each key's state
 * in Flink keyed state, and applies events of one key in ledger order (docs/design.md, guarantee 3).
 *
 * <p><b>Purity.</b> Replay must give the rows the live view had at the same position (docs/design.md,
 * guarantee 5), and training sets must not depend on when they are built. So every method must be a
 * function of its arguments only: no wall clock ({@link System#currentTimeMillis()}; use
 * {@link Event#eventTimeMs()}), no randomness, no I/O, no static mutable fields. Nothing can check this
 * for you; a fold that breaks it gives views that replay differently.
 *
 * <p><b>State.</b> {@link #stateClass()} names the state type, which Flink serializes with its own
 * serializers: a POJO (public class, public no-argument constructor, fields public or with getters and
 * setters), a boxed primitive, {@code String}, or arrays of primitives. Types Flink would serialize with
 * Kryo (collections, interfaces, classes without a no-argument constructor) are refused when the
 * transformation is created: Kryo's output is not guaranteed stable across versions, and a state written
 * today must restore years later. {@link #apply} may update the state it is given and return it.
 *
 * <p>Implementations need a public no-argument constructor; one instance is created per parallel task.
 *
 * @param <S> the state type of one key
 */
public interface Transformation<S> {

  /**
   * The view's key column: its name holds {@link #key(Event)} in every row (type {@code STRING}).
   *
   * @return a column name (letters, digits, {@code _}; not one of {@link #columns()})
   */
  String keyColumn();

  /**
   * The view's other columns, in order.
   *
   * @return one or more columns; names unique, types from {@link Column}
   */
  List<Column> columns();

  /**
   * The row key an event folds into (several events may share one; the event's own key is
   * {@link Event#key()}).
   *
   * @param event the event
   * @return the row key, or null to leave the event out of this transformation
   */
  String key(Event event);

  /**
   * The state of a key before its first event (and after its row was deleted).
   *
   * @return a new state; never null
   */
  S initial();

  /**
   * Fold one event into its key's state.
   *
   * @param state the key's state ({@link #initial()} for its first event)
   * @param event the next event of the key, in ledger order
   * @return the new state, or null to delete the key's row (the next event of the key starts again from
   *     {@link #initial()})
   */
  S apply(S state, Event event);

  /**
   * The row a state shows.
   *
   * @param state a state returned by {@link #apply}
   * @return column name to value for the columns of {@link #columns()}; a missing or null value is SQL
   *     NULL. Values by column type: {@code BIGINT}/{@code INT}/{@code DOUBLE} any {@link Number},
   *     {@code BOOLEAN} a {@link Boolean}, {@code STRING} any object (its {@code toString()}),
   *     {@code TIMESTAMP} an {@link java.time.Instant}, {@link java.time.LocalDateTime} (UTC) or epoch
   *     milliseconds, {@code ARRAY<T>} a {@link java.util.List} or a primitive array of T
   */
  Map<String, ?> row(S state);

  /**
   * The state type Flink serializes (see the class comment).
   *
   * @return the state class
   */
  Class<S> stateClass();
}
