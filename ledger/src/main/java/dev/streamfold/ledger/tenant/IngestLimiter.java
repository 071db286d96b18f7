package dev.streamfold.ledger.tenant;

import dev.streamfold.schema.InvalidEventException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;

/**
 * Enforces a tenant's {@link TenantLimits} on an append request: its size, the size of each event, and the
 * tenant's ingest rate (one token bucket per tenant, shared by all its streams and connections, refilled at
 * {@code ingestEventsPerSecond} and holding at most one second of events, or one full batch when that is
 * more). A refused request takes nothing from the bucket. Thread-safe.
 */
public final class IngestLimiter {
  private final Function<String, TenantLimits> limits;
  private final LongSupplier nanoClock;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  /**
   * Create a limiter.
   *
   * @param limits a tenant's current limits (e.g. {@link TenantRegistry#limits})
   * @param nanoClock monotonic time in nanoseconds (e.g. {@code System::nanoTime})
   */
  public IngestLimiter(Function<String, TenantLimits> limits, LongSupplier nanoClock) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /** A limiter applying {@link TenantLimits#defaults()} to every tenant. */
  public static IngestLimiter defaults() {
    return new IngestLimiter(t -> TenantLimits.defaults(), System::nanoTime);
  }

  /**
   * Check one append request and take its events from the tenant's rate budget.
   *
   * @param tenant the tenant
   * @param events events in the request
   * @param eventBytes size in bytes of the event at an index (its serialized wire form)
   * @throws IllegalArgumentException if the request holds more events than allowed (the message names the
   *     count and the limit)
   * @throws InvalidEventException if an event is larger than allowed (names its index, size and the
   *     limit)
   * @throws TenantException.RateLimited if the request would exceed the tenant's ingest rate
   */
  public void check(String tenant, int events, IntToLongFunction eventBytes) {
    check(tenant, events, eventBytes, eventBytes);
  }

  /**
   * Check one append request and take its events from the tenant's rate budget, computing an event's exact
   * size only when a cheap upper bound of it is over the tenant's limit.
   *
   * @param tenant the tenant
   * @param events events in the request
   * @param eventBytesAtMost an upper bound, in bytes, of the size of the event at an index (at least
   *     {@code eventBytes} of it)
   * @param eventBytes size in bytes of the event at an index (its serialized wire form)
   * @throws IllegalArgumentException if the request holds more events than allowed (the message names the
   *     count and the limit)
   * @throws InvalidEventException if an event is larger than allowed (names its index, size and the
   *     limit)
   * @throws TenantException.RateLimited if the request would exceed the tenant's ingest rate
   */
  public void check(String tenant, int events, IntToLongFunction eventBytesAtMost, IntToLongFunction eventBytes) {
    TenantLimits l = limits.apply(tenant);
    if (events > l.maxEventsPerBatch()) {
      throw new IllegalArgumentException("events: " + events + " events in one request; tenant '" + tenant
          + "' allows at most " + l.maxEventsPerBatch());
    }
    for (int i = 0; i < events; i++) {
      if (eventBytesAtMost.applyAsLong(i) <= l.maxEventBytes()) {
        continue;
      }
      long bytes = eventBytes.applyAsLong(i);
      if (bytes > l.maxEventBytes()) {
        throw new InvalidEventException(i, "event", "is " + bytes + " bytes; tenant '" + tenant
            + "' allows at most " + l.maxEventBytes() + " bytes per event");
      }
    }
    if (events == 0) {
      return;
    }
    Bucket bucket = buckets.computeIfAbsent(tenant, t -> new Bucket(nanoClock.getAsLong()));
    long waitNanos = bucket.take(events, l, nanoClock.getAsLong());
    if (waitNanos > 0) {
      throw new TenantException.RateLimited(tenant, l.ingestEventsPerSecond(), events,
          Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
    }
  }

  /** A token bucket of events; starts full. */
  private static final class Bucket {
    private double available = -1;
    private long lastNanos;

    Bucket(long nowNanos) {
      this.lastNanos = nowNanos;
    }

    /** Take {@code n} events, or nothing; return 0 when taken, else the nanoseconds until they fit. */
    synchronized long take(int n, TenantLimits limits, long nowNanos) {
      double rate = limits.ingestEventsPerSecond();
      double capacity = Math.max(rate, limits.maxEventsPerBatch());
      if (available < 0) {
        available = capacity;
      } else {
        available = Math.min(capacity, available + (nowNanos - lastNanos) * rate / 1e9);
      }
      lastNanos = nowNanos;
      if (available >= n) {
        available -= n;
        return 0;
      }
      return (long) Math.ceil((n - available) * 1e9 / rate);
    }
  }
}
