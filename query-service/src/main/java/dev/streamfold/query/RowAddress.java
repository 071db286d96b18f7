package dev.streamfold.query;

import dev.streamfold.views.ViewName;
import java.util.Optional;

/**
 * A client-visible key {@code <view>:<rowKey>} resolved within a tenant. The key is split at its
 * first ':' (plain view names never contain one), so row keys may contain ':'; a virtual state's
 * position-form name {@code <view>@<message ID>} is split after its message ID (see
 * {@link ViewName#splitKey}).
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
    String[] parts = ViewName.splitKey(key);
    if (parts == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new RowAddress(new ViewName(tenant, parts[0]), parts[1]));
    } catch (IllegalArgumentException notAViewName) {
      return Optional.empty();
    }
  }
}
