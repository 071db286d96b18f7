package dev.streamfold.schema;

import java.util.Map;

/**
 * An event as the ledger stores it: Pulsar message key = {@code key}, event time = {@code eventTimeMs},
 * value = the payload JSON (UTF-8), properties = headers plus {@code sf.type}, {@code sf.idempotency-key} and
 * {@code sf.fingerprint}.
 *
 * @param key event key, non-empty
 * @param type event type, may be empty
 * @param eventTimeMs event time, epoch milliseconds (0: the append time is used)
 * @param payloadJson payload, a JSON object text
 * @param idempotencyKey client idempotency key, may be empty
 * @param headers free-form headers; names are non-empty and do not start with {@value #RESERVED_PROPERTY_PREFIX}
 */
public record EventEnvelope(String key, String type, long eventTimeMs, String payloadJson,
    String idempotencyKey, Map<String, String> headers) {
  /** Message property carrying the event type. */
  public static final String TYPE_PROPERTY = "sf.type";
  /** Message property carrying the client idempotency key. */
  public static final String IDEMPOTENCY_KEY_PROPERTY = "sf.idempotency-key";
  /**
   * Message property carrying the fingerprint of an event with an idempotency key (what the client sent:
   * key, type, event time, payload, headers), so that a reuse of the key for another event is refused, also
   * after the idempotency index was rebuilt from the events. Events stored before it existed have none.
   */
  public static final String FINGERPRINT_PROPERTY = "sf.fingerprint";
  /**
   * Prefix of the message properties the ledger writes itself ({@link #TYPE_PROPERTY},
   * {@link #IDEMPOTENCY_KEY_PROPERTY}, {@link #FINGERPRINT_PROPERTY}), which headers must not use: a header of the same name would be read
   * back as the event's type, or indexed as its idempotency key when the index catches up after a crash.
   */
  public static final String RESERVED_PROPERTY_PREFIX = "sf.";
}
