package dev.streamfold.transforms.manager;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The durable transformation catalog: JSON definitions in each tenant's compacted
 * {@code system/transforms} topic (the ledger itself), cached in memory. Survives server restarts.
 */
final class TransformCatalog {
  /** The table of transformations as served (or first being built). */
  static final String TABLE = "transforms";
  /** The table of updates in progress: the next version of a transformation, built beside the served one. */
  static final String UPDATES_TABLE = "transform-updates";

  private final Ledger ledger;
  private final String table;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Map<String, TransformDefinition>> byTenant = new ConcurrentHashMap<>();

  TransformCatalog(Ledger ledger, String table) {
    this.ledger = ledger;
    this.table = table;
  }

  private synchronized Map<String, TransformDefinition> tenant(String tenant) {
    Map<String, TransformDefinition> cached = byTenant.get(tenant);
    if (cached != null) {
      return cached;
    }
    Map<String, TransformDefinition> loaded = new TreeMap<>();
    for (Map.Entry<String, String> entry : ledger.systemTable(tenant, table).readAll().entrySet()) {
      try {
        loaded.put(entry.getKey(), json.readValue(entry.getValue(), TransformDefinition.class));
      } catch (JsonProcessingException e) {
        throw new TransformException("catalog entry '" + entry.getKey() + "' of tenant '" + tenant
            + "' is not a transformation definition: " + e.getOriginalMessage(), e);
      }
    }
    byTenant.put(tenant, loaded);
    return loaded;
  }

  synchronized List<TransformDefinition> list(String tenant) {
    return new ArrayList<>(tenant(tenant).values());
  }

  synchronized Optional<TransformDefinition> get(String tenant, String name) {
    return Optional.ofNullable(tenant(tenant).get(name));
  }

  synchronized void put(TransformDefinition definition) {
    try {
      ledger.systemTable(definition.tenant(), table).put(definition.name(), json.writeValueAsString(definition));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    tenant(definition.tenant()).put(definition.name(), definition);
  }

  synchronized void delete(String tenant, String name) {
    ledger.systemTable(tenant, table).delete(name);
    tenant(tenant).remove(name);
  }
}
