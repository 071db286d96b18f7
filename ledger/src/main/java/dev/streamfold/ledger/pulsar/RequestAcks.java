package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.MessageId;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The acknowledgement of one append request: one future for the whole request instead of a chain per
 * event. It waits for the request's last sent message; a producer on one partition acknowledges its
 * sends in order, so every other future of the request is done by then and their message IDs are read
 * directly. Futures still pending at that point (sends on other partitions, or an idempotency key's
 * first append in a request on another partition) are waited for together before the request completes.
 */
final class RequestAcks {
  private RequestAcks() {}

  /**
   * Complete once every event of a request is acknowledged.
   *
   * @param sent per event, the producer's send future; null for an event answered by an earlier append
   *     (a repeated idempotency key)
   * @param repeated per event, the message ID of the earlier append of its idempotency key (possibly still
   *     pending); null for an event that was sent
   * @param lastSent index of the last non-null entry of {@code sent}, or -1 when nothing was sent
   * @return per event its message ID and whether it was a repeat; completed exceptionally with the first
   *     failed send's (or earlier append's) cause, unwrapped from {@link CompletionException}, if any failed
   * @throws IllegalArgumentException if the arrays differ in length, an event has both or neither future,
   *     or {@code lastSent} is not the index of the last sent event
   */
  static CompletableFuture<List<Appended>> of(CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent,
      CompletableFuture<MessageId>[] repeated, int lastSent) {
    if (sent.length != repeated.length) {
      throw new IllegalArgumentException("sent and repeated differ in length: " + sent.length + " != "
          + repeated.length);
    }
    int last = -1;
    for (int i = 0; i < sent.length; i++) {
      if ((sent[i] == null) == (repeated[i] == null)) {
        throw new IllegalArgumentException("event " + i + " needs exactly one of a send or an earlier append");
      }
      if (sent[i] != null) {
        last = i;
      }
    }
    if (last != lastSent) {
      throw new IllegalArgumentException("lastSent is " + lastSent + " but the last sent event is " + last);
    }
    CompletableFuture<List<Appended>> result = new CompletableFuture<>();
    CompletableFuture<?> first = lastSent >= 0 ? sent[lastSent] : CompletableFuture.completedFuture(null);
    first.whenComplete((ignored, error) -> {
      List<CompletableFuture<?>> pending = new ArrayList<>();
      for (int i = 0; i < sent.length; i++) {
        CompletableFuture<?> f = sent[i] != null ? sent[i] : repeated[i];
        if (!f.isDone()) {
          pending.add(f);
        }
      }
      if (pending.isEmpty()) {
        finish(sent, repeated, result);
      } else {
        CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
            .whenComplete((ok, e) -> finish(sent, repeated, result));
      }
    });
    return result;
  }

  /** Read every (done) future into the result, or fail it with the first failure. */
  private static void finish(CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent, CompletableFuture<MessageId>[] repeated,
      CompletableFuture<List<Appended>> result) {
    try {
      Appended[] appended = new Appended[sent.length];
      for (int i = 0; i < sent.length; i++) {
        appended[i] = sent[i] != null
            ? new Appended(PulsarMessageIds.toText(sent[i].join()), false)
            : new Appended(repeated[i].join(), true);
      }
      result.complete(Arrays.asList(appended));
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      result.completeExceptionally(unwrap(e));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }

  static Throwable unwrap(Throwable error) {
    while (error instanceof CompletionException && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }
}
