package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewSchema;
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

  /** A view at position 5:20:-1:3 with 900 of 1,000 events applied. */
  private static final class OneView implements ViewReader {
    volatile List<String> position = List.of("5:20:-1:3");

    @Override
    public Optional<Map<String, String>> row(ViewName name, String rowKey) {
      return Optional.empty();
    }

    @Override
    public Optional<ViewSchema> schema(ViewName name) {
      return Optional.empty();
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name) {
      return metadata(name, 2);
    }

    @Override
    public Optional<ViewMetadata> metadata(ViewName name, int version) {
      return name.view().equals("totals") ? Optional.of(new ViewMetadata(2, ViewPhase.LIVE, 900, 800,
          "5:10:-1:-1", position, 3, 9_000, "")) : Optional.empty();
    }

    @Override
    public List<String> views(String tenant) {
      return List.of("totals");
    }

    @Override
    public ScanPage scan(String tenant, String cursor, long count) {
      return new ScanPage("0", List.of());
    }
  }

  private final OneView reader = new OneView();

  private String run(SourceEvents source, int protocol, String... args) {
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
    String reply = run(view -> OptionalLong.of(1_000), 3, "VIEW.INFO", "totals");
    assertThat(reply).startsWith("%13\r\n")
        .contains("$5\r\nphase\r\n$4\r\nLIVE\r\n")
        .contains("$8\r\nposition\r\n*1\r\n$9\r\n5:20:-1:3\r\n")
        .contains("$14\r\nevents_applied\r\n:900\r\n")
        .contains("$10\r\nlag_events\r\n:100\r\n")
        .contains("$18\r\nlast_commit_age_ms\r\n:1000\r\n");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.INFO", "totals")).startsWith("*26\r\n")
        .contains("$10\r\nlag_events\r\n:0\r\n").contains("$13\r\nsource_events\r\n$-1\r\n");
  }

  @Test
  void unknownViewsAndBadIdsAreErrors() {
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.INFO", "nope")).startsWith("-ERR no such view 'nope'");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.WAIT", "totals", "1:2", "10")).startsWith("-ERR invalid message ID '1:2'");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.INFO")).startsWith("-ERR wrong number of arguments for 'view.info'");
  }

  @Test
  void waitAnswersAtOnceWhenThePositionIsReached() {
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:3", "0")).isEqualTo(":1\r\n");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:19:-1:99", "0")).isEqualTo(":1\r\n");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.WAIT", "totals", "5:20:-1:4", "0")).isEqualTo(":0\r\n");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.WAIT", "totals", "6:0:-1:-1", "0")).isEqualTo(":0\r\n");
    assertThat(run(SourceEvents.UNKNOWN, 2, "VIEW.LIST")).isEqualTo("*1\r\n$6\r\ntotals\r\n");
  }
}
