package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import dev.streamfold.ledger.Appended;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.junit.jupiter.api.Test;

class RequestAcksTest {

  private static org.apache.pulsar.client.api.MessageId id(int batchIndex) {
    return new BatchMessageIdImpl(7, 3, -1, batchIndex);
  }

  private static MessageId text(int batchIndex) {
    return new MessageId(7, 3, -1, batchIndex);
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sends(int n) {
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = new CompletableFuture[n];
    for (int i = 0; i < n; i++) {
      sent[i] = new CompletableFuture<>();
    }
    return sent;
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<MessageId>[] none(int n) {
    return new CompletableFuture[n];
  }

  @Test
  void completesWhenTheLastSendDoesWithEveryMessageIdInEventOrder() {
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(3);
    CompletableFuture<List<Appended>> acks = RequestAcks.of(sent, none(3), 2);
    sent[0].complete(id(0));
    sent[1].complete(id(1));
    assertThat(acks).isNotDone();
    sent[2].complete(id(2));
    assertThat(acks.join()).containsExactly(new Appended(text(0), false), new Appended(text(1), false),
        new Appended(text(2), false));
  }

  @Test
  void waitsForSendsStillPendingWhenTheLastOneCompletesFirst() {
    // another partition's send, or a producer that does not complete in order
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(3);
    CompletableFuture<List<Appended>> acks = RequestAcks.of(sent, none(3), 2);
    sent[2].complete(id(2));
    sent[0].complete(id(0));
    assertThat(acks).isNotDone();
    sent[1].complete(id(1));
    assertThat(acks.join()).extracting(Appended::messageId).containsExactly(text(0), text(1), text(2));
  }

  @Test
  void answersRepeatsWithTheEarlierAppendsMessageIdOnceItIsKnown() {
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(3);
    CompletableFuture<MessageId>[] repeated = none(3);
    CompletableFuture<MessageId> earlier = new CompletableFuture<>();
    sent[1] = null;
    repeated[1] = earlier;
    CompletableFuture<List<Appended>> acks = RequestAcks.of(sent, repeated, 2);
    sent[0].complete(id(0));
    sent[2].complete(id(2));
    assertThat(acks).isNotDone();
    earlier.complete(text(9));
    assertThat(acks.join()).containsExactly(new Appended(text(0), false), new Appended(text(9), true),
        new Appended(text(2), false));
  }

  @Test
  void aRequestOfRepeatsOnlyCompletesWithThem() {
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(2);
    sent[0] = null;
    sent[1] = null;
    CompletableFuture<MessageId>[] repeated = none(2);
    repeated[0] = CompletableFuture.completedFuture(text(4));
    repeated[1] = new CompletableFuture<>();
    CompletableFuture<List<Appended>> acks = RequestAcks.of(sent, repeated, -1);
    assertThat(acks).isNotDone();
    repeated[1].complete(text(5));
    assertThat(acks.join()).containsExactly(new Appended(text(4), true), new Appended(text(5), true));
  }

  @Test
  void failsWithTheFailedSendsCauseOnceEverySendIsDone() {
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(3);
    CompletableFuture<List<Appended>> acks = RequestAcks.of(sent, none(3), 2);
    IllegalStateException timeout = new IllegalStateException("send timed out");
    sent[1].completeExceptionally(timeout);
    sent[2].completeExceptionally(new IllegalStateException("later"));
    assertThat(acks).isNotDone(); // sent[0] still pending
    sent[0].complete(id(0));
    assertThatThrownBy(acks::get).isInstanceOf(ExecutionException.class).hasCause(timeout);
  }

  @Test
  void anEmptyRequestCompletesAtOnce() {
    assertThat(RequestAcks.of(sends(0), none(0), -1).join()).isEmpty();
  }

  @Test
  void refusesInconsistentArguments() {
    assertThatThrownBy(() -> RequestAcks.of(sends(2), none(3), 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 != 3");
    assertThatThrownBy(() -> RequestAcks.of(sends(2), none(2), 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lastSent is 0 but the last sent event is 1");
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = sends(1);
    CompletableFuture<MessageId>[] both = none(1);
    both[0] = new CompletableFuture<>();
    assertThatThrownBy(() -> RequestAcks.of(sent, both, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("event 0");
  }
}
