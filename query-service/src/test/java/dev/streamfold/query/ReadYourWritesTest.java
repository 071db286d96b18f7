package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import org.junit.jupiter.api.Test;

/** The message ID a client waits for (VIEW.WAIT, gRPC GetRow): what is accepted and the replies to what is not. */
class ReadYourWritesTest {
  @Test
  void parsesAMessageIdAsMessageIdDoes() {
    assertThat(ReadYourWrites.parseMessageId("5:20:-1:3")).isEqualTo(new MessageId(5, 20, -1, 3));
    assertThat(ReadYourWrites.parseMessageId("-1:-1:7:-1")).isEqualTo(new MessageId(-1, -1, 7, -1));
  }

  @Test
  void refusesTextThatIsNotFourPartsWithItsOwnReply() {
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("1:2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid message ID '1:2': expected ledgerId:entryId:partition:batchIndex");
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("not-an-id"))
        .hasMessage("invalid message ID 'not-an-id': expected ledgerId:entryId:partition:batchIndex");
  }

  @Test
  void refusesComponentsThatAreNotIntegers() {
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("a:b:c:d"))
        .hasMessage("invalid message ID 'a:b:c:d': components must be integers");
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("99999999999999999999:0:-1:0"))
        .hasMessage("invalid message ID '99999999999999999999:0:-1:0': components must be integers");
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId(" 5:20:-1:3"))
        .as("RESP arguments are not trimmed").hasMessage("invalid message ID ' 5:20:-1:3': components must be integers");
  }

  @Test
  void refusesWhatNoLedgerReturns() {
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("1:2:-5:-1")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("message ID components must be >= -1, got 1:2:-5:-1");
    assertThatThrownBy(() -> ReadYourWrites.parseMessageId("1:2:3000000000:-1"))
        .hasMessage("invalid message ID '1:2:3000000000:-1': components must be integers");
  }
}
