package dev.streamfold.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Where the ledger's Pulsar cluster is and how long to wait for it.
 *
 * @param serviceUrl binary protocol URL, e.g. {@code pulsar://127.0.0.1:6650}
 * @param adminUrl admin REST URL, e.g. {@code http://127.0.0.1:8080}
 * @param operationTimeout longest wait for one Pulsar operation (default {@link #DEFAULT_OPERATION_TIMEOUT})
 * @param bookieAdminUrl BookKeeper's admin REST URL (e.g. {@code http://127.0.0.1:8000}), or null. Pulsar's
 *     admin API does not say whether an offloaded segment's local copy was deleted; with this URL the
 *     ledger asks the bookies which ledgers they still hold.
 * @param clockInterval how often this ledger's writer of each tenant's clock reads the streams' positions and
 *     records a tick when they moved (docs/design.md, "Many streams, one clock"); {@link Duration#ZERO} (the
 *     default of {@link #of}) writes no clock: a server sets it ({@link #DEFAULT_CLOCK_INTERVAL}), tools and
 *     tests that only read or append need not
 */
public record LedgerOptions(String serviceUrl, String adminUrl, Duration operationTimeout, String bookieAdminUrl,
    Duration clockInterval) {
  /** Default longest wait for one Pulsar operation. */
  public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);
  /** The clock interval a server uses unless told otherwise. */
  public static final Duration DEFAULT_CLOCK_INTERVAL = Duration.ofMillis(100);

  public LedgerOptions {
    Objects.requireNonNull(serviceUrl, "serviceUrl");
    Objects.requireNonNull(adminUrl, "adminUrl");
    operationTimeout = operationTimeout == null ? DEFAULT_OPERATION_TIMEOUT : operationTimeout;
    clockInterval = clockInterval == null ? Duration.ZERO : clockInterval;
    if (clockInterval.isNegative()) {
      throw new IllegalArgumentException("clock interval must be >= 0, got " + clockInterval);
    }
  }

  /** Options with the default timeout, no bookie admin URL and no clock writer. */
  public static LedgerOptions of(String serviceUrl, String adminUrl) {
    return new LedgerOptions(serviceUrl, adminUrl, DEFAULT_OPERATION_TIMEOUT, null, Duration.ZERO);
  }

  /** These options with BookKeeper's admin REST URL. */
  public LedgerOptions withBookieAdminUrl(String url) {
    return new LedgerOptions(serviceUrl, adminUrl, operationTimeout, url, clockInterval);
  }

  /**
   * These options with a clock interval.
   *
   * @param interval how often to read the streams' positions for a tick; {@link Duration#ZERO} writes no clock
   * @throws IllegalArgumentException if negative
   */
  public LedgerOptions withClockInterval(Duration interval) {
    return new LedgerOptions(serviceUrl, adminUrl, operationTimeout, bookieAdminUrl, interval);
  }

  /** True when this ledger writes its tenants' clocks. */
  public boolean writesClock() {
    return !clockInterval.isZero();
  }
}
