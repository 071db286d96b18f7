package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** How {@link ReplayMatchesLive} names the rows a replay and a live view disagree on. */
class ReplayMatchesLiveTest {
  private static Map<String, String> row(String... pairs) {
    Map<String, String> row = new LinkedHashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      row.put(pairs[i], pairs[i + 1]);
    }
    return row;
  }

  @Test
  void equalRowsHaveNoDifferencesWhateverTheColumnOrder() {
    Map<String, Map<String, String>> live = Map.of("a", row("k", "a", "n", "1"), "b", row("k", "b", "n", "2"));
    Map<String, Map<String, String>> replayed = new TreeMap<>(Map.of("a", row("n", "1", "k", "a"),
        "b", row("k", "b", "n", "2")));
    assertThat(ReplayMatchesLive.differences(live, replayed, 5)).isEmpty();
  }

  @Test
  void aChangedValueAMissingColumnAndAMissingRowAreEachNamed() {
    Map<String, Map<String, String>> live = new TreeMap<>();
    live.put("a", row("k", "a", "n", "1"));
    live.put("b", row("k", "b", "n", "2", "v", "x"));
    live.put("c", row("k", "c", "n", "3"));
    Map<String, Map<String, String>> replayed = new TreeMap<>();
    replayed.put("a", row("k", "a", "n", "7"));
    replayed.put("b", row("k", "b", "n", "2"));
    replayed.put("d", row("k", "d", "n", "4"));
    assertThat(ReplayMatchesLive.differences(live, replayed, 5)).containsExactly(
        "key 'a': n live '1', replay '7'",
        "key 'b': v live 'x', replay (absent)",
        "key 'c': only in the live view {k=c, n=3}",
        "key 'd': only in the replay {k=d, n=4}");
  }

  @Test
  void onlyTheFirstKeysAreDescribedAndTheRestCounted() {
    Map<String, Map<String, String>> live = new TreeMap<>();
    Map<String, Map<String, String>> replayed = new TreeMap<>();
    for (int i = 0; i < 10; i++) {
      live.put("k" + i, row("n", Integer.toString(i)));
      replayed.put("k" + i, row("n", Integer.toString(i + (i % 2))));
    }
    List<String> differences = ReplayMatchesLive.differences(live, replayed, 2);
    assertThat(differences).containsExactly("key 'k1': n live '1', replay '2'", "key 'k3': n live '3', replay '4'",
        "... 3 more differing keys");
  }

  @Test
  void aReportWithViewsListedButNoneComparedFails() {
    assertThat(new ReplayMatchesLive.Report(List.of(), List.of()).assertComparedAny()).isNotNull();
    assertThat(new ReplayMatchesLive.Report(List.of("t/a"), List.of("t/b: FAILED: boom")).assertComparedAny())
        .isNotNull();
    assertThatThrownBy(() ->
        new ReplayMatchesLive.Report(List.of(), List.of("t/b: FAILED: boom")).assertComparedAny())
        .isInstanceOf(AssertionError.class).hasMessage("no view was compared with its replay; skipped: t/b: FAILED: boom");
  }
}
