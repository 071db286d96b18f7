package dev.streamfold.transforms.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ViewSinkWriterTest {
  private final RedisViewSink.Writer writer = new RedisViewSink.Writer(new String[] {"origin", "n"});

  @Test
  void oneCommitPerBarrierWithTheLastChangePerKey() {
    writer.write(ViewChange.upsert("ATL", new String[] {"ATL", "1"}), null);
    writer.write(ViewChange.delete("ATL"), null);
    writer.write(ViewChange.upsert("ATL", new String[] {"ATL", "2"}), null);
    writer.write(ViewChange.upsert("SFO", new String[] {"SFO", null}), null);
    writer.write(ViewChange.upsert("LAX", new String[] {"LAX", "1"}), null);
    writer.write(ViewChange.delete("LAX"), null);
    writer.write(ViewChange.progress("1:2:-1:3", 4), null);
    ViewCommit commit = writer.prepareCommit().iterator().next();
    assertThat(commit.upserts()).containsExactly(Map.entry("ATL", Map.of("origin", "ATL", "n", "2")),
        Map.entry("SFO", Map.of("origin", "SFO")));
    assertThat(commit.deletes()).containsExactly("LAX");
    assertThat(commit.position()).isEqualTo("1:2:-1:3");
    assertThat(commit.eventsApplied()).isEqualTo(4);
  }

  @Test
  void noCommitWhenNothingMoved() {
    writer.write(ViewChange.progress("1:2:-1:3", 4), null);
    assertThat(writer.prepareCommit()).hasSize(1);
    assertThat(writer.prepareCommit()).isEmpty();
    writer.write(ViewChange.progress("1:2:-1:3", 4), null);
    assertThat(writer.prepareCommit()).isEmpty();
    writer.write(ViewChange.progress("1:2:-1:4", 5), null);
    assertThat(writer.prepareCommit()).singleElement().satisfies(c -> assertThat(c.eventsApplied()).isEqualTo(5));
  }

  @Test
  void rowChangesWithoutAPositionAreABug() {
    writer.write(ViewChange.upsert("ATL", new String[] {"ATL", "1"}), null);
    assertThatThrownBy(writer::prepareCommit).hasMessageContaining("without a position");
  }

  @Test
  void theFirstCommitOfAnEmptyStreamIsKept() {
    writer.write(ViewChange.progress("", 0), null);
    assertThat(writer.prepareCommit()).singleElement().satisfies(c -> assertThat(c.upserts()).isEmpty());
    assertThat(List.copyOf(writer.prepareCommit())).isEmpty();
  }

  @Test
  void aBoundedWriterAppliesEachCommitItselfInOrder() {
    List<ViewCommit> applied = new java.util.ArrayList<>();
    boolean[] closed = {false};
    RedisViewSink.Writer bounded = new RedisViewSink.Writer(new String[] {"origin", "n"},
        new RedisViewSink.CommitTarget() {
          @Override
          public void apply(ViewCommit commit) {
            applied.add(commit);
          }

          @Override
          public void close() {
            closed[0] = true;
          }
        });
    bounded.write(ViewChange.upsert("ATL", new String[] {"ATL", "1"}), null);
    bounded.write(ViewChange.progress("1:2:-1:3", 4), null);
    assertThat(bounded.prepareCommit()).isEmpty(); // a barrier: nothing for the committer
    bounded.write(ViewChange.upsert("ATL", new String[] {"ATL", "2"}), null);
    bounded.write(ViewChange.progress("1:2:-1:5", 6), null);
    bounded.flush(true);
    assertThat(bounded.prepareCommit()).isEmpty(); // the end of input
    bounded.close();
    assertThat(applied).extracting(ViewCommit::eventsApplied).containsExactly(4L, 6L);
    assertThat(applied.get(1).upserts()).containsExactly(Map.entry("ATL", Map.of("origin", "ATL", "n", "2")));
    assertThat(applied.get(1).position()).isEqualTo("1:2:-1:5");
    assertThat(closed[0]).isTrue();
  }
}
