package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.VirtualState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ViewInfoCommandsTest {
  private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(10_000), ZoneOffset.UTC);

  /**
   * A view "totals" at position 5:20:-1:3 with 900 of 1,000 events applied, and its complete virtual state
   * "totals@5:10:-1:-1" (at 5:10:-1:-1, 400 events, 2 rows); {@link #rolledBack} rolls the view back to it.
   */
  private static final class OneView implements ViewReader {
    static final ViewName STATE = new ViewName("acme", "totals@5:10:-1:-1");
    /** Complete virtual states of the same range that do not start at the earliest event. */
    static final ViewName WINDOW = new ViewName("acme", "window");
    static final ViewName TIMED = new ViewName("acme", "timed");
    volatile PositionVector position = PositionVector.parse("5:20:-1:3");
    volatile boolean rolledBack;

    @Override
    public Optional<Map<String, String>> row(ViewName name, String rowKey) {
      return Optional.empty();
    }

    /** A view registered but serving nothing yet (its first version backfilling or failed). */
    static final ViewName UNSERVED = new ViewName("acme", "building");

    @Override
    public Optional<ViewSchema> schema(ViewName name) {
      return name.equals(UNSERVED) ? Optional.of(new ViewSchema(Map.of("k", "STRING", "n", "BIGINT"), List.of("k")))
          : Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name) {
      return rolledBack && name.view().equals("totals") ? metadata(STATE, 1) : liveMetadata(name);
    }

    @Override
    public Optional<ViewMetadata> liveMetadata(ViewName name) {
      return metadata(name, name.equals(STATE) || name.equals(WINDOW) || name.equals(TIMED) ? 1 : 2);
    }

    @Override
    public Optional<ViewName> rollbackTarget(ViewName name) {
      return rolledBack && name.view().equals("totals") ? Optional.of(STATE) : Optional.empty();
    }

    @Override
    public Optional<VirtualState> virtualState(ViewName name) {
      if (name.equals(WINDOW) || name.equals(TIMED)) {
        return Optional.of(new VirtualState(name, "totals", 2, "SELECT ...",
            name.equals(WINDOW) ? "from 5:4:-1:-1" : "from 2015-01-02T00:00:00Z", "to 5:10:-1:-1", 5_000));
      }
      return name.equals(STATE) ? Optional.of(new VirtualState(STATE, "totals", 2, "SELECT ...", "",
          "to 5:10:-1:-1", 5_000)) : Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name, int version) {
      if ((name.equals(STATE) || name.equals(WINDOW) || name.equals(TIMED)) && version == 1) {
        return Optional.of(new ViewMetadata(1, ViewPhase.COMPLETE, 400, 400, PositionVector.parse("5:10:-1:-1"),
            PositionVector.parse("5:10:-1:-1"), 2, 8_000, ""));
      }
      if (name.view().equals("joined") && version == 2) {
        return Optional.of(new ViewMetadata(2, ViewPhase.LIVE, 900, 800, PositionVector.EMPTY, PositionVector.EMPTY, 3,
            9_000, "", 0, ClockPosition.parse("17 airports=10:3:-1:-1 flights=11:40:0:-1,12:38:1:-1"),
            ClockPosition.parse("15 airports=10:3:-1:-1 flights=11:30:0:-1")));
      }
      return name.view().equals("totals") && version == 2 ? Optional.of(new ViewMetadata(2, ViewPhase.LIVE, 900, 800,
          PositionVector.parse("5:10:-1:-1"), position, 3, 9_000, "")) : Optional.empty();
    }

    @Override
    public List<String> views(String tenant) {
      return List.of("totals", STATE.view());
    }

    @Override
    public ScanPage scan(String tenant, String cursor, long count) {
      return new ScanPage("0", List.of());
    }
  }

  private final OneView reader = new OneView();

  /**
   * Sources of 1,000 events whose streams' ledgers are: 10 of airports, 11 and 12 of flights ("joined" reads both);
   * ledger 99 is of a stream no view reads.
   */
  private static final ViewSources SOURCES = new ViewSources() {
    @Override
    public OptionalLong eventsInSource(ViewName view) {
      return OptionalLong.of(1_000);
    }

    @Override
    public Optional<String> streamOf(ViewName view, MessageId id) {
      assertThat(view.view()).isEqualTo("joined");
      return id.ledgerId() == 10 ? Optional.of("airports") : id.ledgerId() <= 12 ? Optional.of("flights") : Optional.empty();
    }
  };

  private String run(ViewSources source, int protocol, String... args) {
    ServerState server = new ServerState(CLOCK, "acme");
    CommandDispatcher dispatcher = new CommandDispatcher(reader, server, source, CLOCK);
    Session session = new Session(server.nextClientId(), "acme", "127.0.0.1:1", "127.0.0.1:2");
    if (protocol == 3) {
      dispatcher.execute(session, Request.of("HELLO", "3"));
    }
    RedisMessage reply = dispatcher.execute(session, Request.of(args));
    ByteBuf out = Unpooled.buffer();
    try {
      Resp3Encoder.write(reply, out);
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
      ReferenceCountUtil.release(reply);
    }
  }

  @Test
  void infoReportsPositionProgressAndLag() {
    String reply = run(SOURCES, 3, "VIEW.INFO", "totals");
    assertThat(reply).startsWith("%23\r\n")
        .contains("$4\r\nkind\r\n$4\r\nview\r\n")
        .contains("$5\r\nphase\r\n$4\r\nLIVE\r\n")
        .contains("$8\r\nposition\r\n*1\r\n$9\r\n5:20:-1:3\r\n")
        .contains("$14\r\nevents_applied\r\n:900\r\n")
        .contains("$10\r\nlag_events\r\n:100\r\n")
        .contains("$18\r\nlast_commit_age_ms\r\n:1000\r\n")
        .contains("$14\r\nrolled_back_to\r\n_\r\n")
        .contains("$23\r\nevents_behind_watermark\r\n:0\r\n")
        .contains("$4\r\ntick\r\n_\r\n")
        .contains("$16\r\nstream_positions\r\n*0\r\n")
        .contains("$13\r\nlive_position\r\n*1\r\n$9\r\n5:20:-1:3\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.INFO", "totals")).startsWith("*46\r\n")
        .contains("$10\r\nlag_events\r\n:0\r\n").contains("$13\r\nsource_events\r\n$-1\r\n");
  }

  @Test
  void aViewOverSeveralStreamsReportsItsTickAndWaitsForAMessageIdOfAnyOfItsStreams() {
    assertThat(run(ViewSources.UNKNOWN, 3, "VIEW.INFO", "joined"))
        .contains("$8\r\nposition\r\n*0\r\n")
        .contains("$4\r\ntick\r\n:17\r\n")
        .contains("$16\r\nstream_positions\r\n*2\r\n$19\r\nairports=10:3:-1:-1\r\n$29\r\nflights=11:40:0:-1,12:38:1:-1\r\n")
        .contains("$20\r\nbackfill_target_tick\r\n:15\r\n");
    // tick 17 covers airports up to 10:3 and flights up to 11:40 in partition 0, 12:38 in partition 1
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "10:3:-1:-1", "0")).isEqualTo(":1\r\n");
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "11:40:0:-1", "0")).isEqualTo(":1\r\n");
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "12:38:1:-1", "0")).isEqualTo(":1\r\n");
    // the same entry numbers in the other stream's ledger or partition are not reached yet
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "10:4:-1:-1", "0")).isEqualTo(":0\r\n");
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "12:38:0:-1", "0")).isEqualTo(":0\r\n");
    assertThat(run(SOURCES, 2, "VIEW.WAIT", "joined", "99:0:-1:-1", "0"))
        .startsWith("-ERR message ID 99:0:-1:-1 is in none of the streams view 'joined' reads (now tick 17 (airports=");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "joined", "11:40:0:-1", "0"))
        .startsWith("-ERR view 'joined' reads several streams and commits at ticks of the tenant clock (now tick 17 (")
        .contains("which stream a message ID belongs to is not known here");
  }

  @Test
  void unknownViewsAndBadIdsAreErrors() {
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.INFO", "nope")).startsWith("-ERR no such view 'nope'");
    // a view that exists but serves no version yet was "no such view" too, while VIEW.LIST listed it (tryout 14)
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.INFO", "building"))
        .startsWith("-ERR view 'building' serves no version yet: its first version is still backfilling, or failed");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "1:2", "10")).startsWith("-ERR invalid message ID '1:2'");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.INFO")).startsWith("-ERR wrong number of arguments for 'view.info'");
  }

  @Test
  void waitAnswersAtOnceWhenThePositionIsReached() {
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:3", "0")).isEqualTo(":1\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:19:-1:99", "0")).isEqualTo(":1\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:4", "0")).isEqualTo(":0\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "6:0:-1:-1", "0")).isEqualTo(":0\r\n");
  }

  @Test
  void waitForAMessageIdOfTheOtherKindOfStreamIsRefusedAtOnce() {
    // "totals" reads an unpartitioned stream: a message ID naming partition 2 can never be applied
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "6:0:2:-1", "60000"))
        .startsWith("-ERR message ID 6:0:2:-1 names partition 2, but view 'totals' reads an unpartitioned stream"
            + " at position 5:20:-1:3");
  }

  @Test
  void listShowsViewsAndVirtualStatesWithKindPositionAndSize() {
    String reply = run(ViewSources.UNKNOWN, 3, "VIEW.LIST");
    assertThat(reply).startsWith("*2\r\n%8\r\n$4\r\nname\r\n$6\r\ntotals\r\n$4\r\nkind\r\n$4\r\nview\r\n")
        .contains("$8\r\nposition\r\n*1\r\n$9\r\n5:20:-1:3\r\n$4\r\nrows\r\n:3\r\n$14\r\nevents_applied\r\n:900\r\n")
        .contains("$17\r\ntotals@5:10:-1:-1\r\n$4\r\nkind\r\n$7\r\nvirtual\r\n$5\r\nphase\r\n$8\r\nCOMPLETE\r\n")
        .contains("$11\r\nsource_view\r\n$6\r\ntotals\r\n$12\r\nfull_history\r\n:1\r\n");
  }

  @Test
  void infoOnAVirtualStateShowsWhatItIs() {
    String reply = run(ViewSources.UNKNOWN, 3, "VIEW.INFO", "totals@5:10:-1:-1");
    assertThat(reply).startsWith("%18\r\n")
        .contains("$4\r\nkind\r\n$7\r\nvirtual\r\n$11\r\nsource_view\r\n$6\r\ntotals\r\n"
            + "$17\r\ntransform_version\r\n:2\r\n$5\r\nstart\r\n$8\r\nearliest\r\n$4\r\nstop\r\n$13\r\nto 5:10:-1:-1\r\n"
            + "$12\r\nfull_history\r\n:1\r\n$5\r\nphase\r\n$8\r\nCOMPLETE\r\n$8\r\nposition\r\n*1\r\n$10\r\n5:10:-1:-1\r\n")
        .contains("$16\r\nrolled_back_view\r\n_\r\n");
  }

  @Test
  void aRolledBackViewReportsWhatReadsReturnAndItsLiveState() {
    reader.rolledBack = true;
    String reply = run(ViewSources.UNKNOWN, 3, "VIEW.INFO", "totals");
    assertThat(reply).contains("$5\r\nphase\r\n$8\r\nCOMPLETE\r\n")
        .contains("$7\r\nversion\r\n:2\r\n") // the state was replayed with version 2, not its storage version 1
        .contains("$8\r\nposition\r\n*1\r\n$10\r\n5:10:-1:-1\r\n")
        .contains("$14\r\nrolled_back_to\r\n$17\r\ntotals@5:10:-1:-1\r\n")
        .contains("$13\r\nlive_position\r\n*1\r\n$9\r\n5:20:-1:3\r\n");
    assertThat(run(ViewSources.UNKNOWN, 3, "VIEW.INFO", "totals@5:10:-1:-1"))
        .contains("$16\r\nrolled_back_view\r\n$6\r\ntotals\r\n");
  }

  @Test
  void waitOnARolledBackViewOrACompleteStateIsRefusedUnlessReached() {
    reader.rolledBack = true;
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:10:-1:-1", "1000")).isEqualTo(":1\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:3", "1000"))
        .startsWith("-ERR view 'totals' is rolled back to virtual state 'totals@5:10:-1:-1' (position 5:10:-1:-1)")
        .contains("resume the view first (streamfold resume totals)");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals@5:10:-1:-1", "5:11:-1:-1", "1000"))
        .startsWith("-ERR virtual state 'totals@5:10:-1:-1' is COMPLETE at position 5:10:-1:-1: it never applies"
            + " message ID 5:11:-1:-1");
    reader.rolledBack = false;
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:3", "0")).isEqualTo(":1\r\n");
  }

  @Test
  void waitOnAStateThatStartsLaterThanTheEarliestEventAnswersOnlyForItsRange() {
    // "window" applied 5:4:-1:-1 .. 5:10:-1:-1: its position reaches 5:3:-1:-1, but it never applied it
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "window", "5:3:-1:-1", "1000"))
        .startsWith("-ERR virtual state 'window' starts at 5:4:-1:-1 (from 5:4:-1:-1), not at the earliest event: it"
            + " never applies message ID 5:3:-1:-1, which is before its start");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "window", "5:4:-1:-1", "1000")).isEqualTo(":1\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "window", "5:10:-1:-1", "0")).isEqualTo(":1\r\n");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "window", "5:11:-1:-1", "0"))
        .startsWith("-ERR virtual state 'window' is COMPLETE at position 5:10:-1:-1");
    assertThat(run(ViewSources.UNKNOWN, 2, "VIEW.WAIT", "timed", "5:9:-1:-1", "0"))
        .startsWith("-ERR virtual state 'timed' starts at an event time (from 2015-01-02T00:00:00Z)");
  }
}
