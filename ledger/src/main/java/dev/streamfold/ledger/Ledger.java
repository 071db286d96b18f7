package dev.streamfold.ledger;

/**
 * The immutable ledger: tenants, their streams on Pulsar, and appends. Implemented by
 * {@link dev.streamfold.ledger.pulsar.PulsarLedger}. Its roles are interfaces of their own, for callers that
 * need one: {@link StreamAdmin}, {@link EventAppender}, {@link EventReader}, {@link TieredStorage},
 * {@link SystemTables} and {@link TenantClock}. Thread-safe.
 */
public interface Ledger extends StreamAdmin, EventAppender, EventReader, TieredStorage, SystemTables, TenantClock,
    AutoCloseable {

  /** The Pulsar service URL, for Flink sources. */
  String serviceUrl();

  /** The Pulsar admin URL, for Flink sources. */
  String adminUrl();

  @Override
  void close();
}
