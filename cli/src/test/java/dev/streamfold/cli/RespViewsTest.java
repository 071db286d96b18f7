package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.PositionVector;
import dev.streamfold.deploy.process.FreePorts;
import dev.streamfold.query.RespServer;
import dev.streamfold.query.RespServerOptions;
import dev.streamfold.query.ViewSources;
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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RespViews} against the real query-service ({@link RespServer} with AUTH, in process) over rows held in
 * memory: the reads of {@code view get}, {@code view info} and the demo, and the errors the CLI prints for them.
 */
class RespViewsTest {
  private static final String TENANT = "acme";
  private static final String TOKEN = "sf_acme";
  private static final InMemoryViews READER = new InMemoryViews();
  private static RespServer server;

  @BeforeAll
  static void start() {
    Map<String, String> row = new LinkedHashMap<>();
    row.put("origin", "ATL");
    row.put("flights", "2");
    row.put("avg_delay", "10.5");
    READER.rows.put("delays:ATL", row);
    READER.rows.put("delays:k\\|ü", Map.of("origin", "k|ü"));
    // more than one SCAN page (COUNT 1000)
    IntStream.range(0, 1500).forEach(i -> READER.rows.put(String.format("many:%04d", i), Map.of("n", "1")));
    server = new RespServer(READER, RespServerOptions.defaults(), ViewSources.UNKNOWN,
        (user, token) -> user.equals(TENANT) && token.equals(TOKEN) ? Optional.of(TENANT) : Optional.empty()).start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static RespViews connect() {
    return RespViews.connect("127.0.0.1", server.port(), TENANT, TOKEN);
  }

  @Test
  void readsARowInColumnOrder() {
    try (RespViews views = connect()) {
      assertThat(views.row("delays", "ATL")).containsExactly(Map.entry("origin", "ATL"), Map.entry("flights", "2"),
          Map.entry("avg_delay", "10.5"));
      assertThat(views.row("delays", "k\\|ü")).containsExactly(Map.entry("origin", "k|ü"));
      assertThat(views.row("delays", "nope")).isEmpty();
    }
  }

  @Test
  void listsEveryKeyOfAViewOverScanPages() {
    try (RespViews views = connect()) {
      assertThat(views.keys("delays")).containsExactly("ATL", "k\\|ü");
      assertThat(views.keys("many")).hasSize(1500).doesNotHaveDuplicates().contains("0000", "1499");
      assertThat(views.keys("none")).isEmpty();
    }
  }

  @Test
  void readsViewInfoInTheServersOrder() {
    try (RespViews views = connect()) {
      Map<String, String> info = views.info("delays");
      assertThat(new ArrayList<>(info.keySet()).subList(0, 6))
          .containsExactly("view", "kind", "phase", "version", "position", "events_applied");
      assertThat(info).containsEntry("view", "delays").containsEntry("phase", "LIVE").containsEntry("version", "1")
          .containsEntry("position", "3:0:0:0,4:2:1:0").containsEntry("events_applied", "2")
          // nil (no source event count) and an empty text
          .containsEntry("source_events", "").containsEntry("error", "");
    }
  }

  @Test
  void aMissingViewIsTheServersErrorReply() {
    try (RespViews views = connect()) {
      assertThatThrownBy(() -> views.info("nosuch")).isInstanceOf(RespException.ErrorReply.class)
          .hasMessage("ERR no such view 'nosuch' (VIEW.LIST lists the views and virtual states)")
          .satisfies(e -> assertThat(ErrorHandler.describe(e))
              .isEqualTo("query-service: ERR no such view 'nosuch' (VIEW.LIST lists the views and virtual states)"));
    }
  }

  @Test
  void aRefusedTokenIsNotAnUnreachableServer() {
    assertThatThrownBy(() -> RespViews.connect("127.0.0.1", server.port(), "other", TOKEN))
        .isInstanceOf(RespException.NotConnected.class)
        .hasRootCauseMessage("WRONGPASS invalid username-password pair or user is disabled.")
        .satisfies(e -> assertThat(ErrorHandler.describe(e)).isEqualTo("the query-service refused the token: WRONGPASS"
            + " invalid username-password pair or user is disabled. (a tenant's token acts only for its tenant: name it"
            + " with --tenant or STREAMFOLD_TENANT; the admin token acts for registered tenants)"));
  }

  @Test
  void aClosedPortAsksWhetherTheStackRuns() {
    int closed = FreePorts.pick();
    assertThatThrownBy(() -> RespViews.connect("127.0.0.1", closed, TENANT, TOKEN))
        .isInstanceOf(RespException.NotConnected.class)
        .satisfies(e -> assertThat(ErrorHandler.describe(e)).startsWith("cannot reach the query-service over RESP: ")
            .contains("Connection refused").endsWith(" (is the local stack running? `streamfold local status`)"));
  }

  /** One view per key prefix, every view LIVE at version 1 with 2 events applied. */
  private static final class InMemoryViews implements ViewReader {
    /** Rows by client-visible key ({@code <view>:<row key>}), sorted. */
    final Map<String, Map<String, String>> rows = new TreeMap<>();

    private List<String> viewNames() {
      return rows.keySet().stream().map(k -> k.substring(0, k.indexOf(':'))).distinct().collect(Collectors.toList());
    }

    @Override
    public Optional<Map<String, String>> row(ViewName name, String rowKey) {
      return Optional.ofNullable(rows.get(name.view() + ":" + rowKey)).map(LinkedHashMap::new);
    }

    @Override
    public Optional<ViewSchema> schema(ViewName name) {
      return viewNames().contains(name.view()) ? Optional.of(new ViewSchema(Map.of("origin", "STRING"), List.of("origin")))
          : Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name) {
      return metadata(name, 1);
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name, int version) {
      return version == 1 && viewNames().contains(name.view()) ? Optional.of(new ViewMetadata(1, ViewPhase.LIVE, 2, 2,
          PositionVector.parse("4:2:1:0"), PositionVector.parse("3:0:0:0,4:2:1:0"), 2, 1_000, ""))
          : Optional.empty();
    }

    @Override
    public List<String> views(String tenant) {
      return viewNames();
    }

    @Override
    public ScanPage scan(String tenant, String cursor, long count) {
      List<String> keys = new ArrayList<>(rows.keySet());
      int from = Math.min(Integer.parseInt(cursor), keys.size());
      int to = (int) Math.min(keys.size(), from + count);
      return new ScanPage(to >= keys.size() ? "0" : Integer.toString(to), keys.subList(from, to));
    }
  }
}
