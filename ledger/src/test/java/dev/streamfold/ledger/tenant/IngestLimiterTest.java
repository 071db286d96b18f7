package dev.streamfold.ledger.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.schema.InvalidEventException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Batch size, event size and the per-tenant token bucket, with a hand-moved clock. */
class IngestLimiterTest {
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final Map<String, TenantLimits> limits = Map.of("slow", new TenantLimits(100, 10, 20),
      "fast", TenantLimits.defaults());
  private final IngestLimiter limiter = new IngestLimiter(limits::get, nanos::get);

  @Test
  void refusesLargeBatchesAndEventsNamingTheIndexAndLimit() {
    assertThatThrownBy(() -> limiter.check("slow", 11, i -> 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("11 events").hasMessageContaining("at most 10");
    assertThatThrownBy(() -> limiter.check("slow", 3, i -> i == 2 ? 101 : 100))
        .isInstanceOf(InvalidEventException.class).hasMessageContaining("event 2")
        .hasMessageContaining("101 bytes").hasMessageContaining("at most 100");
    assertThatCode(() -> limiter.check("slow", 3, i -> 100)).doesNotThrowAnyException();
  }

  @Test
  void rateLimitIsATokenBucketOfOneSecondPerTenant() {
    limiter.check("slow", 10, i -> 1);
    limiter.check("slow", 10, i -> 1);
    assertThatThrownBy(() -> limiter.check("slow", 1, i -> 1)).isInstanceOf(TenantException.RateLimited.class)
        .hasMessageContaining("20 events/s").hasMessageContaining("tenant 'slow'");
    limiter.check("fast", 10_000, i -> 1); // another tenant's budget is its own

    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(250)); // refills 5 events
    limiter.check("slow", 5, i -> 1);
    assertThatThrownBy(() -> limiter.check("slow", 1, i -> 1)).isInstanceOf(TenantException.RateLimited.class)
        .hasMessageContaining("50 ms");

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(60)); // refills at most one second's worth
    limiter.check("slow", 10, i -> 1);
    limiter.check("slow", 10, i -> 1);
    assertThatThrownBy(() -> limiter.check("slow", 1, i -> 1)).isInstanceOf(TenantException.RateLimited.class);
  }

  @Test
  void aRefusedRequestTakesNothing() {
    limiter.check("slow", 10, i -> 1);
    assertThatThrownBy(() -> limiter.check("slow", 10, i -> 1000)).isInstanceOf(InvalidEventException.class);
    limiter.check("slow", 10, i -> 1);
    assertThat(limits).isNotEmpty();
  }

  @Test
  void computesTheExactSizeOnlyWhenTheBoundIsOverTheLimit() {
    java.util.List<Integer> exact = new java.util.ArrayList<>();
    limiter.check("slow", 3, i -> i == 1 ? 150 : 100, i -> {
      exact.add(i);
      return 100;
    });
    assertThat(exact).containsExactly(1);
    assertThatThrownBy(() -> limiter.check("slow", 3, i -> 1000, i -> i == 2 ? 120 : 90))
        .isInstanceOf(InvalidEventException.class).hasMessageContaining("event 2")
        .hasMessageContaining("120 bytes");
  }
}
