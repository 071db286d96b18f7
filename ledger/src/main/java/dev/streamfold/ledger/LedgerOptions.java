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
 */
public record LedgerOptions(String serviceUrl, String adminUrl, Duration operationTimeout, String bookieAdminUrl) {
  /** Default longest wait for one Pulsar operation. */
  public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);

  public LedgerOptions {
    Objects.requireNonNull(serviceUrl, "serviceUrl");
    Objects.requireNonNull(adminUrl, "adminUrl");
    operationTimeout = operationTimeout == null ? DEFAULT_OPERATION_TIMEOUT : operationTimeout;
  }

  /** Options with the default timeout. */
  public static LedgerOptions of(String serviceUrl, String adminUrl) {
    return new LedgerOptions(serviceUrl, adminUrl, DEFAULT_OPERATION_TIMEOUT, null);
  }

  /** These options with BookKeeper's admin REST URL. */
  public LedgerOptions withBookieAdminUrl(String url) {
    return new LedgerOptions(serviceUrl, adminUrl, operationTimeout, url);
  }
}
