package dev.streamfold.query;

import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ViewReader} over rows held in memory, for unit tests of the server without Redis. Its scan
 * pages through the sorted client-visible keys, {@code count} keys per page, the cursor being the
 * index of the next key.
 */
class InMemoryViewReader implements ViewReader {
  private final Map<ViewName, ViewSchema> schemas = new ConcurrentHashMap<>();
  private final Map<ViewName, Map<String, Map<String, String>>> rows = new ConcurrentHashMap<>();
  /** When set, every read throws it (to test error mapping). */
  volatile RuntimeException failure;

  void define(ViewName name, ViewSchema schema) {
    schemas.put(name, schema);
    rows.putIfAbsent(name, new ConcurrentHashMap<>());
  }

  void put(ViewName name, String rowKey, Map<String, String> row) {
    rows.get(name).put(rowKey, new LinkedHashMap<>(row));
  }

  private void maybeFail() {
    RuntimeException e = failure;
    if (e != null) {
      throw e;
    }
  }

  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    maybeFail();
    Map<String, Map<String, String>> view = rows.get(name);
    return view == null ? Optional.empty() : Optional.ofNullable(view.get(rowKey)).map(LinkedHashMap::new);
  }

  @Override
  public Optional<ViewSchema> schema(ViewName name) {
    maybeFail();
    return Optional.ofNullable(schemas.get(name));
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name) {
    return metadata(name, 1);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name, int version) {
    maybeFail();
    Map<String, Map<String, String>> view = rows.get(name);
    return view == null || version != 1 ? Optional.empty() : Optional.of(
        new ViewMetadata(1, ViewPhase.LIVE, view.size(), 0, PositionVector.EMPTY, PositionVector.EMPTY, view.size(), 0,
            ""));
  }

  @Override
  public List<String> views(String tenant) {
    maybeFail();
    return schemas.keySet().stream().filter(n -> n.tenant().equals(tenant)).map(ViewName::view).sorted().toList();
  }

  @Override
  public ScanPage scan(String tenant, String cursor, long count) {
    maybeFail();
    if (!cursor.matches("[0-9]+")) {
      throw new IllegalArgumentException("invalid cursor '" + cursor + "'");
    }
    TreeMap<String, Boolean> all = new TreeMap<>();
    rows.forEach((name, view) -> {
      if (name.tenant().equals(tenant)) {
        view.keySet().forEach(k -> all.put(name.view() + ":" + k, true));
      }
    });
    List<String> keys = new ArrayList<>(all.keySet());
    int from = (int) Math.min(Long.parseLong(cursor), keys.size());
    int to = (int) Math.min(keys.size(), from + count);
    return new ScanPage(to >= keys.size() ? "0" : Integer.toString(to), keys.subList(from, to));
  }
}
