package dev.streamfold.ledger;

import java.util.Map;

/**
 * A durable key-value table stored in the ledger itself: a compacted Pulsar topic where the latest
 * message of each key is its value and an empty value is a tombstone. Survives server restarts.
 */
public interface SystemTable {

  /**
   * Store a value, durably.
   *
   * @param key the key
   * @param value the value, UTF-8 text, non-empty
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  void put(String key, String value);

  /**
   * Delete a key (appends a tombstone).
   *
   * @param key the key
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  void delete(String key);

  /**
   * Read the whole table: every key's latest value, tombstoned keys left out.
   *
   * @return key to value, in key order
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  Map<String, String> readAll();
}
