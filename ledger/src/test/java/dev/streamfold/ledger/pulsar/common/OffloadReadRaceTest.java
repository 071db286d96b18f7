package dev.streamfold.ledger.pulsar.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.junit.jupiter.api.Test;

class OffloadReadRaceTest {

  /** What the admin client throws for the broker's HTTP 500 answer naming the closed handle. */
  private static PulsarAdminException closedHandle() {
    return new PulsarAdminException.ServerSideErrorException(null,
        "org.apache.bookkeeper.mledger.ManagedLedgerException$OffloadReadHandleClosedException: "
            + OffloadReadRace.CLOSED_HANDLE_MESSAGE, "", 500);
  }

  @Test
  void aClosedHandleIsRetriedUntilTheCallSucceeds() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    String answer = OffloadReadRace.call(() -> {
      if (calls.incrementAndGet() < 3) {
        throw closedHandle();
      }
      return "253:1:-1:299";
    });
    assertThat(answer).isEqualTo("253:1:-1:299");
    assertThat(calls).hasValue(3);
  }

  @Test
  void anyOtherFailureIsThrownAtOnce() {
    AtomicInteger calls = new AtomicInteger();
    PulsarAdminException notFound = new PulsarAdminException.NotFoundException(null, "Topic not found", 404);
    assertThatThrownBy(() -> OffloadReadRace.call(() -> {
      calls.incrementAndGet();
      throw notFound;
    })).isSameAs(notFound);
    assertThat(calls).hasValue(1);
  }

  @Test
  void aHandleClosedOnEveryAttemptFailsAfterTheLastWithTheFirstSuppressed() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> OffloadReadRace.call(() -> {
      calls.incrementAndGet();
      throw closedHandle();
    })).isInstanceOf(PulsarAdminException.ServerSideErrorException.class)
        .hasMessageContaining(OffloadReadRace.CLOSED_HANDLE_MESSAGE)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(calls).hasValue(OffloadReadRace.ATTEMPTS);
  }

  @Test
  void aReadersClosedHandleFailureWrappedByItsFutureIsRetriedToo() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    boolean available = OffloadReadRace.call(() -> {
      if (calls.incrementAndGet() == 1) {
        throw new java.util.concurrent.ExecutionException(new org.apache.pulsar.client.api.PulsarClientException(
            "Failed to get last message id: " + OffloadReadRace.CLOSED_HANDLE_MESSAGE));
      }
      return true;
    });
    assertThat(available).isTrue();
    assertThat(calls).hasValue(2);
  }

  @Test
  void theMessageIsFoundInACause() {
    assertThat(OffloadReadRace.isClosedHandle(new RuntimeException("wrapped", closedHandle()))).isTrue();
    assertThat(OffloadReadRace.isClosedHandle(new RuntimeException("Offload read handle"))).isFalse();
  }
}
