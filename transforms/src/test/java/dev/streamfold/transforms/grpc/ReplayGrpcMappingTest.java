package dev.streamfold.transforms.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.ViewUpdate;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.core.PositionVector;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.ViewStatus;
import dev.streamfold.transforms.VirtualStateStatus;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import io.grpc.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The wire side of replay and updates: error mapping, cursor fields, conversions. */
class ReplayGrpcMappingTest {

  @Test
  void errorsMapToStatusCodesWithTheirMessage() {
    assertThat(code(new TransformException.InvalidReplay("message ID 1:2:-1:-1 is not in stream s"))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(new IllegalArgumentException("bad"))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(new TransformException.InvalidSql("bad sql", null))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(new TransformException.NotFound("t", "v"))).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(code(new TransformException.VirtualStateNotFound("t", "v@1:2:-1:-1"))).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(code(new TransformException.AlreadyExists("t", "v"))).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(code(new TransformException.VirtualStateExists("t", "v"))).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(code(new TransformException.Conflict("not complete"))).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(code(new LedgerException.Unavailable("pulsar down", null))).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(code(new IllegalStateException("?"))).isEqualTo(Status.Code.INTERNAL);
    assertThat(ReplayGrpcService.toStatus(new TransformException.Conflict("virtual state 'x' is BACKFILLING"))
        .getStatus().getDescription()).isEqualTo("virtual state 'x' is BACKFILLING");
    assertThat(TransformGrpcService.toStatus(new TransformException.VirtualStateExists("t", "v")).getStatus().getCode())
        .isEqualTo(Status.Code.ALREADY_EXISTS);
  }

  private static Status.Code code(RuntimeException e) {
    return TransformStatus.toStatus(e).getStatus().getCode();
  }

  @Test
  void cursorFieldsAreParsedAndNamedInErrors() {
    ReplayCursor to = ReplayGrpcService.toCursor("12:5:-1:4", false);
    assertThat(to.kind()).isEqualTo(ReplayCursor.Kind.MESSAGE);
    assertThat(to.inclusive()).isFalse();
    assertThat(ReplayGrpcService.toCursor("latest", true).kind()).isEqualTo(ReplayCursor.Kind.LATEST);
    assertThat(ReplayGrpcService.toCursor("2015-01-02", true).eventTimeMs()).isEqualTo(1_420_156_800_000L);
    assertThat(ReplayGrpcService.fromCursor("")).isEmpty();
    assertThat(ReplayGrpcService.fromCursor("12:0:-1:-1").get().inclusive()).isTrue();
    assertThatThrownBy(() -> ReplayGrpcService.toCursor(" ", true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("field 'to' is required");
    assertThatThrownBy(() -> ReplayGrpcService.toCursor("yesterday", true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("field 'to': cannot read cursor 'yesterday'");
    assertThatThrownBy(() -> ReplayGrpcService.toCursor("latest", false)).hasMessageContaining("'before latest' is not a position");
    assertThatThrownBy(() -> ReplayGrpcService.fromCursor("1:2")).hasMessageStartingWith("field 'from': cannot read cursor '1:2'");
  }

  @Test
  void virtualStatesConvertWithProgressAndRollbacks() {
    ViewName name = new ViewName("acme", "delays@12:5:-1:4");
    dev.streamfold.views.VirtualState state = new dev.streamfold.views.VirtualState(name, "delays", 3, "SELECT 1", "",
        "to 12:5:-1:4", 1_000);
    VirtualState empty = ReplayGrpcService.proto(new VirtualStateStatus(state, Optional.empty(), List.of(),
        "no event applied for 60 s"));
    assertThat(empty.getPhase()).isEqualTo("STARTING");
    assertThat(empty.getFullHistory()).isTrue();
    assertThat(empty.getName()).isEqualTo("delays@12:5:-1:4");
    assertThat(empty.getStalled()).isEqualTo("no event applied for 60 s");
    VirtualState done = ReplayGrpcService.proto(new VirtualStateStatus(state, Optional.of(new ViewMetadata(1,
        ViewPhase.COMPLETE, 5, 5, PositionVector.parse("12:5:-1:4"), PositionVector.parse("12:5:-1:4"), 2, 2_000,
        "")), List.of("delays"), ""));
    assertThat(done.getPhase()).isEqualTo("COMPLETE");
    assertThat(done.getEventsApplied()).isEqualTo(5);
    assertThat(done.getTargetEvents()).isEqualTo(5);
    assertThat(done.getPositionList()).containsExactly("12:5:-1:4");
    assertThat(done.getRows()).isEqualTo(2);
    assertThat(done.getRolledBackViewsList()).containsExactly("delays");
    assertThat(done.getTransformVersion()).isEqualTo(3);
    assertThat(done.getStop()).isEqualTo("to 12:5:-1:4");
  }

  @Test
  void viewStatusCarriesTheUpdateAndTheRollback() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("origin", "STRING");
    columns.put("flights", "BIGINT");
    TransformDefinition v1 = new TransformDefinition("acme", "delays", "SELECT origin, COUNT(*) AS flights FROM f GROUP BY origin",
        "f", List.of("origin"), columns, 1, 1);
    TransformDefinition v2 = v1.withVersion(2);
    ViewMetadata live = new ViewMetadata(1, ViewPhase.LIVE, 10, 10, PositionVector.parse("1:9:-1:-1"),
        PositionVector.parse("1:9:-1:-1"), 3, 5, "");
    ViewMetadata building = new ViewMetadata(2, ViewPhase.BACKFILLING, 4, 10, PositionVector.parse("1:9:-1:-1"),
        PositionVector.parse("1:3:-1:-1"), 2, 6, "");
    ViewStatus status = new ViewStatus(v1, Optional.of(live), 1, "RUNNING", "",
        Optional.of(new ViewStatus.Update(v2, Optional.of(building), "RUNNING", "", "no event applied for 61 s")),
        Optional.of("delays@1:5:-1:-1"), "");
    dev.streamfold.api.v1.ViewStatus p = TransformGrpcService.proto(status);
    assertThat(p.getPhase()).isEqualTo("LIVE");
    assertThat(p.getVersion()).isEqualTo(1);
    assertThat(p.getServedVersion()).isEqualTo(1);
    assertThat(p.getRolledBackTo()).isEqualTo("delays@1:5:-1:-1");
    ViewUpdate u = p.getUpdate();
    assertThat(u.getVersion()).isEqualTo(2);
    assertThat(u.getPhase()).isEqualTo("BACKFILLING");
    assertThat(u.getEventsApplied()).isEqualTo(4);
    assertThat(u.getBackfillTargetEvents()).isEqualTo(10);
    assertThat(u.getColumnsList()).containsExactly("origin", "flights");
    assertThat(u.getStalled()).isEqualTo("no event applied for 61 s");
    assertThat(p.getStalled()).isEmpty();

    dev.streamfold.api.v1.ViewStatus failed = TransformGrpcService.proto(new ViewStatus(v1, Optional.of(live), 1,
        "RUNNING", "", Optional.of(new ViewStatus.Update(v2, Optional.empty(), "FAILED", "boom", "")), Optional.empty(), ""));
    assertThat(failed.getUpdate().getPhase()).isEqualTo("FAILED");
    assertThat(failed.getUpdate().getError()).isEqualTo("boom");
    assertThat(failed.getRolledBackTo()).isEmpty();
    assertThat(failed.getPhase()).isEqualTo("LIVE");
  }
}
