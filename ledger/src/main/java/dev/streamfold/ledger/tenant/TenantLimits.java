package dev.streamfold.ledger.tenant;

/**
 * Per-tenant ingestion limits, stored with the tenant.
 *
 * @param maxEventBytes largest event accepted, bytes of its serialized wire form, 1 to
 *     {@value #MAX_MAX_EVENT_BYTES}
 * @param maxEventsPerBatch most events in one append request, 1 to {@value #MAX_MAX_EVENTS_PER_BATCH}
 * @param ingestEventsPerSecond sustained ingest rate of the whole tenant, events per second, >= 1; bursts of
 *     one second's worth (at least one batch) pass at once
 */
public record TenantLimits(long maxEventBytes, int maxEventsPerBatch, long ingestEventsPerSecond) {
  /** Default largest event: 1 MiB. */
  public static final long DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
  /** Upper bound of {@code maxEventBytes}: 16 MiB (the server's largest gRPC message is 64 MiB). */
  public static final long MAX_MAX_EVENT_BYTES = 16 * 1024 * 1024;
  /** Default and upper bound of events per append request. */
  public static final int DEFAULT_MAX_EVENTS_PER_BATCH = 10_000;
  /** Upper bound of {@code maxEventsPerBatch}. */
  public static final int MAX_MAX_EVENTS_PER_BATCH = 10_000;
  /** Default ingest rate: 1,000,000 events/s (above what one server ingests, docs/performance.md). */
  public static final long DEFAULT_INGEST_EVENTS_PER_SECOND = 1_000_000;

  /**
   * Create limits.
   *
   * @throws IllegalArgumentException if a value is out of range (the message names it and its range)
   */
  public TenantLimits {
    if (maxEventBytes < 1 || maxEventBytes > MAX_MAX_EVENT_BYTES) {
      throw new IllegalArgumentException("max event bytes must be in 1.." + MAX_MAX_EVENT_BYTES + ", got "
          + maxEventBytes);
    }
    if (maxEventsPerBatch < 1 || maxEventsPerBatch > MAX_MAX_EVENTS_PER_BATCH) {
      throw new IllegalArgumentException("max events per batch must be in 1.." + MAX_MAX_EVENTS_PER_BATCH
          + ", got " + maxEventsPerBatch);
    }
    if (ingestEventsPerSecond < 1) {
      throw new IllegalArgumentException("ingest rate must be >= 1 events/s, got " + ingestEventsPerSecond);
    }
  }

  /** The defaults. */
  public static TenantLimits defaults() {
    return new TenantLimits(DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_EVENTS_PER_BATCH, DEFAULT_INGEST_EVENTS_PER_SECOND);
  }

  /**
   * Return limits with zero values replaced by the defaults (the wire form's "not set").
   *
   * @param maxEventBytes 0 for the default
   * @param maxEventsPerBatch 0 for the default
   * @param ingestEventsPerSecond 0 for the default
   * @return the limits
   * @throws IllegalArgumentException if a non-zero value is out of range
   */
  public static TenantLimits orDefaults(long maxEventBytes, int maxEventsPerBatch, long ingestEventsPerSecond) {
    return new TenantLimits(maxEventBytes == 0 ? DEFAULT_MAX_EVENT_BYTES : maxEventBytes,
        maxEventsPerBatch == 0 ? DEFAULT_MAX_EVENTS_PER_BATCH : maxEventsPerBatch,
        ingestEventsPerSecond == 0 ? DEFAULT_INGEST_EVENTS_PER_SECOND : ingestEventsPerSecond);
  }
}
