package dev.streamfold.query;

import dev.streamfold.views.ViewName;
import java.util.Optional;

/**
 * A client-visible key {@code <view>:<rowKey>} resolved within a tenant. The key is split at its
 * first ':' (view names never contain one), so row keys may contain ':'.
 *
 * @param view the view
 * @param rowKey the row key, possibly empty
 */
record RowAddress(ViewName view, String rowKey) {

  /**
   * Resolve a key.
   *
   * @param tenant the connection's tenant
   * @param key the key as the client sent it
   * @return the address, or empty when the key cannot name a row (no ':', or not a valid view name
   *     before it): such a key simply does not exist, like any missing Redis key
   */
  static Optional<RowAddress> parse(String tenant, String key) {
    int colon = key.indexOf(':');
    if (colon <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(new RowAddress(new ViewName(tenant, key.substring(0, colon)), key.substring(colon + 1)));
    } catch (IllegalArgumentException notAViewName) {
      return Optional.empty();
    }
  }
}
