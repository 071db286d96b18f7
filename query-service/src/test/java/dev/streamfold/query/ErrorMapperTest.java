package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;

class ErrorMapperTest {
  @Test
  void aRedisFailureSaysTheViewStoreDidNotAnswerWithoutTheInternalCommand() {
    // it was "ERR EVALSHA. Command timed out after 10 second(s)": a script call the client never made
    assertThat(ErrorMapper.toReply(new RedisCommandTimeoutException("EVALSHA. Command timed out after 10 second(s)"))
        .content()).isEqualTo("ERR the view store (Redis) did not answer: Command timed out after 10 second(s)");
  }

  @Test
  void otherErrorsKeepTheirMessageOnOneLine() {
    assertThat(ErrorMapper.toReply(new IllegalArgumentException("bad\r\nname")).content()).isEqualTo("ERR bad  name");
    assertThat(ErrorMapper.toReply(RespException.err("no such view")).content()).isEqualTo("ERR no such view");
  }
}
