package dev.streamfold.ledger;

import dev.streamfold.core.Tick;
import java.util.List;
import java.util.Optional;

/**
 * The ledger's role of reading a tenant's clock (docs/design.md, "Many streams, one clock"): the recorded ticks
 * that give all of a tenant's streams one order. Ticks are written by the servers (one writer per tenant at a
 * time) and never change.
 */
public interface TenantClock {
  /**
   * How often this ledger records a tick of each tenant's clock it knows, while its streams receive events.
   *
   * @return the interval; {@link java.time.Duration#ZERO} when this ledger writes no clock (another server may)
   */
  java.time.Duration clockInterval();

  /**
   * The last recorded tick of a tenant's clock.
   *
   * @param tenant a tenant name
   * @return the tick, or empty before its first tick
   * @throws IllegalArgumentException if the tenant name is malformed
   * @throws LedgerException.Unavailable if the clock cannot be read (Pulsar down; the message names the clock)
   */
  Optional<Tick> lastTick(String tenant);

  /**
   * Recorded ticks of a tenant's clock, in order, after a tick number.
   *
   * @param tenant a tenant name
   * @param afterTick a tick number; 0 for the clock's first tick on
   * @param maxTicks the most ticks to return, > 0
   * @return consecutive ticks; empty when none was recorded after {@code afterTick}
   * @throws IllegalArgumentException if the tenant name is malformed, {@code afterTick < 0} or
   *     {@code maxTicks <= 0}
   * @throws LedgerException.Unavailable if the clock cannot be read
   */
  List<Tick> ticks(String tenant, long afterTick, int maxTicks);

  /**
   * The first recorded tick of a tenant's clock that passes a test, in tick order; for tests that, once passed,
   * stay passed (a tick covers all its predecessors cover, and is recorded no earlier), such as "covers this
   * event" or "recorded after this time". Reads the clock from its first tick: time grows with the ticks before
   * the answer.
   *
   * @param tenant a tenant name
   * @param test the test
   * @return the tick, or empty when no recorded tick passes it
   * @throws IllegalArgumentException if the tenant name is malformed
   * @throws LedgerException.Unavailable if the clock cannot be read
   */
  Optional<Tick> firstTick(String tenant, java.util.function.Predicate<Tick> test);
}
