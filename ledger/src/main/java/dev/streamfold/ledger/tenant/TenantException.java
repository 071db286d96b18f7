package dev.streamfold.ledger.tenant;

import dev.streamfold.ledger.LedgerException;

/** Errors of the tenant registry and of tenant limits. */
public class TenantException extends LedgerException {
  TenantException(String message) {
    super(message);
  }

  /** A tenant that is registered already. */
  public static final class Exists extends TenantException {
    public Exists(String tenant) {
      super("tenant '" + tenant + "' exists (issue a new token with: streamfold tenant token rotate " + tenant
          + ")");
    }
  }

  /** A tenant, or a token id of a tenant, that is not registered. */
  public static final class NotFound extends TenantException {
    public NotFound(String message) {
      super(message);
    }
  }

  /** A request beyond the tenant's ingest rate limit; nothing of it was appended. */
  public static final class RateLimited extends TenantException {
    private final long retryAfterMs;

    /**
     * @param tenant the tenant
     * @param eventsPerSecond its ingest rate limit, events/s
     * @param events events of the refused request
     * @param retryAfterMs in how many ms the request would fit the tenant's token bucket, at least 1
     */
    public RateLimited(String tenant, long eventsPerSecond, int events, long retryAfterMs) {
      super("tenant '" + tenant + "' is over its ingest rate limit of " + eventsPerSecond + " events/s: a request"
          + " of " + events + " events fits again in about " + retryAfterMs + " ms; nothing of it was appended");
      this.retryAfterMs = retryAfterMs;
    }

    /** In how many ms the refused request would fit, at least 1. */
    public long retryAfterMs() {
      return retryAfterMs;
    }
  }
}
