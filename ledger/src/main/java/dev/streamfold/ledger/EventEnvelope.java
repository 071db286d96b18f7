package dev.streamfold.ledger;

import java.util.Map;

/**
 * An event as the ledger stores it: Pulsar message key = {@code key}, event time = {@code eventTimeMs},
 * value = the payload JSON (UTF-8), properties = headers plus {@code sf.type}/{@code sf.idempotency-key}.
 *
 * @param key event key, non-empty
 * @param type event type, may be empty
 * @param eventTimeMs event time, epoch milliseconds (0: the append time is used)
 * @param payloadJson payload, a JSON object text
 * @param idempotencyKey client idempotency key, may be empty
 * @param headers free-form headers
 */
public record EventEnvelope(String key, String type, long eventTimeMs, String payloadJson,
    String idempotencyKey, Map<String, String> headers) {
  /** Message property carrying the event type. */
  public static final String TYPE_PROPERTY = "sf.type";
  /** Message property carrying the client idempotency key. */
  public static final String IDEMPOTENCY_KEY_PROPERTY = "sf.idempotency-key";
}
