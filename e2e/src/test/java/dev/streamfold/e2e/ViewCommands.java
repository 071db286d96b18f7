package dev.streamfold.e2e;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;

/** The query-service's own RESP commands ({@code VIEW.INFO}, {@code VIEW.WAIT}, ...) sent with lettuce. */
final class ViewCommands {
  private ViewCommands() {}

  /** A command keyword lettuce sends as given, e.g. {@code VIEW.WAIT}. */
  static ProtocolKeyword keyword(String name) {
    return new ProtocolKeyword() {
      @Override
      public byte[] getBytes() {
        return name.getBytes(StandardCharsets.US_ASCII);
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  /**
   * {@code VIEW.WAIT view messageId timeoutMs}.
   *
   * @return 1 when reached, 0 on timeout
   * @throws io.lettuce.core.RedisCommandExecutionException when the service refuses the wait
   */
  static long viewWait(StatefulRedisConnection<String, String> resp, String view, String messageId, long timeoutMs) {
    return resp.sync().dispatch(keyword("VIEW.WAIT"), new IntegerOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add(view).add(messageId).add(timeoutMs));
  }
}
