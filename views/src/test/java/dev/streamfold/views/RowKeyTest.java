package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowKeyTest {
  @Test
  void plainValuesAreThemselvesAndSeparatorsBackslashesAndNullsAreEscaped() {
    assertThat(ViewSchema.rowKey("ATL")).isEqualTo("ATL");
    assertThat(ViewSchema.rowKey("ATL", "JFK")).isEqualTo("ATL|JFK");
    assertThat(ViewSchema.rowKey("x|y")).isEqualTo("x\\|y");
    assertThat(ViewSchema.rowKey("a\\b")).isEqualTo("a\\\\b");
    assertThat(ViewSchema.rowKey((String) null)).isEqualTo("\\N");
    assertThat(ViewSchema.rowKey("")).isEmpty();
    assertThat(ViewSchema.rowKey("\\N")).isEqualTo("\\\\N");
  }

  /** Different tuples never share a row key (the plain join gave ("x|y","z") and ("x","y|z") one row). */
  @Test
  void differentTuplesHaveDifferentKeys() {
    List<String[]> tuples = List.of(new String[] {"x|y", "z"}, new String[] {"x", "y|z"}, new String[] {"x", "y", "z"},
        new String[] {null, ""}, new String[] {"", null}, new String[] {"", ""}, new String[] {null, null},
        new String[] {"\\N", ""}, new String[] {"\\", "|"}, new String[] {"\\|", ""}, new String[] {"", "\\|"},
        new String[] {"x\\", "y"}, new String[] {"x", "\\y"});
    Set<String> keys = new HashSet<>();
    for (String[] tuple : tuples) {
      keys.add(ViewSchema.rowKey(tuple));
    }
    assertThat(keys).hasSize(tuples.size());
  }
}
