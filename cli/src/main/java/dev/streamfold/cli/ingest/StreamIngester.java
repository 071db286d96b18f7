package dev.streamfold.cli.ingest;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Appends events over one {@code IngestService.AppendStream} call: batches of
 * {@link #DEFAULT_BATCH_EVENTS} events per request, at most {@link #DEFAULT_MAX_UNACKED_REQUESTS}
 * requests awaiting their acknowledgement (flow control on top of gRPC's own), every acknowledgement
 * checked (request order, one message ID per event).
 *
 * <p>A request the tenant's ingest rate refuses (RESOURCE_EXHAUSTED with a {@code google.rpc.RetryInfo}; the
 * server appended nothing of it and ends the call) is sent again with the requests after it, in order, on a
 * new call, after the delay the server gives: an input larger than the tenant's token bucket is ingested at
 * the tenant's rate rather than refused part-way. Other failures end the ingestion.
 */
public final class StreamIngester {
  /** Events per AppendRequest. */
  public static final int DEFAULT_BATCH_EVENTS = 2_000;
  /**
   * Most bytes of events per AppendRequest: half the server's 4 MiB request limit
   * ({@code IngestGrpcService.MAX_REQUEST_BYTES}, gRPC's default), so wide rows never make a request the
   * server refuses; a request closes at this size or at the event count, whichever comes first.
   */
  public static final int MAX_BATCH_BYTES = 2 * 1024 * 1024;
  /** Requests sent but not acknowledged yet, at most. */
  public static final int DEFAULT_MAX_UNACKED_REQUESTS = 16;
  /** Longest wait for the remaining acknowledgements after the last request. */
  public static final Duration DEFAULT_FINAL_ACK_TIMEOUT = Duration.ofMinutes(5);

  /** A source of events; returns null after the last one. */
  @FunctionalInterface
  public interface EventSource {
    /**
     * Produce the next event.
     *
     * @return the event, or null when there are no more
     * @throws IOException if the input cannot be read
     * @throws InputException if a row cannot become an event
     */
    Event next() throws IOException;
  }

  /**
   * The outcome of an ingestion.
   *
   * @param events events acknowledged by the server (they are in the ledger)
   * @param messageIds message IDs received, one per event
   * @param firstMessageId message ID of the first event, "" when none
   * @param lastMessageId message ID of the last event, "" when none
   * @param lastPosition the last message ID of each partition written to, as a position (e.g.
   *     {@code 11:40:0:-1,12:38:1:-1}; one message ID for an unpartitioned stream), "" when none
   * @param elapsedNanos time from the first request to the last acknowledgement
   * @param rateWaits how many times the tenant's ingest rate refused a request, which was sent again after the
   *     wait the server asked for
   * @param rateWaitedMs those waits in all, ms
   */
  public record Result(long events, long messageIds, String firstMessageId, String lastMessageId, String lastPosition,
      long elapsedNanos, int rateWaits, long rateWaitedMs) {
    /** Events per second over the whole call, 0 when nothing was sent. */
    public double eventsPerSecond() {
      return elapsedNanos <= 0 ? 0 : events * 1e9 / elapsedNanos;
    }
  }

  private final IngestServiceGrpc.IngestServiceStub stub;
  private final String tenant;
  private final String stream;
  private final int batchEvents;
  private final int maxUnackedRequests;

  /**
   * Create an ingester for one stream.
   *
   * @param stub the async ingest stub
   * @param tenant tenant name
   * @param stream stream name
   * @param batchEvents events per request, 1..10,000
   * @param maxUnackedRequests requests in flight at most, at least 1
   * @throws IllegalArgumentException if a number is out of range
   */
  public StreamIngester(IngestServiceGrpc.IngestServiceStub stub, String tenant, String stream, int batchEvents,
      int maxUnackedRequests) {
    if (batchEvents < 1 || batchEvents > 10_000) {
      throw new IllegalArgumentException("batchEvents must be 1..10000, got " + batchEvents);
    }
    if (maxUnackedRequests < 1) {
      throw new IllegalArgumentException("maxUnackedRequests must be at least 1, got " + maxUnackedRequests);
    }
    this.stub = stub;
    this.tenant = tenant;
    this.stream = stream;
    this.batchEvents = batchEvents;
    this.maxUnackedRequests = maxUnackedRequests;
  }

  /**
   * Append every event of a source, in order, and wait for all acknowledgements.
   *
   * @param source the events
   * @param onAcked called with the running total of acknowledged events after each acknowledgement
   *     (from a gRPC thread)
   * @return what was appended
   * @throws StatusRuntimeException if the server rejects a request or the call fails (events
   *     acknowledged before are in the ledger)
   * @throws InputException if a row cannot become an event (the call is cancelled; events acknowledged
   *     before are in the ledger)
   * @throws IOException if the input cannot be read
   */
  public Result ingest(EventSource source, LongConsumer onAcked) throws IOException {
    return ingest(source, onAcked, ordinal -> "event " + (ordinal + 1) + " of the input");
  }

  /**
   * Append every event of a source, in order, and wait for all acknowledgements; events the server
   * refuses are reported by where they came from.
   *
   * @param source the events
   * @param onAcked called with the running total of acknowledged events after each acknowledgement
   * @param describe where the event with a 0-based ordinal (in source order) came from, e.g.
   *     {@code f.csv row 12 (line 13)}; asked only for events of requests not yet acknowledged
   * @return what was appended
   * @throws StatusRuntimeException if the server rejects a request (INVALID_ARGUMENT: its description names
   *     each refused event by {@code describe} and says how many events were appended before) or the call
   *     fails
   * @throws InputException if a row cannot become an event
   * @throws IOException if the input cannot be read
   */
  public Result ingest(EventSource source, LongConsumer onAcked, java.util.function.LongFunction<String> describe)
      throws IOException {
    Run run = new Run(onAcked, describe);
    Call call = run.open();
    try {
      List<Event> batch = new ArrayList<>(batchEvents);
      long batchBytes = 0;
      long sent = 0;
      while (true) {
        Event event = source.next();
        long eventBytes = event == null ? 0 : event.getSerializedSize() + 6L; // with its tag and length prefix
        if (!batch.isEmpty() && (event == null || batchBytes + eventBytes > MAX_BATCH_BYTES)) {
          sent += batch.size();
          call = run.send(call, batch, sent - batch.size());
          batchBytes = 0;
        }
        if (event == null) {
          break;
        }
        batch.add(event);
        batchBytes += eventBytes;
        if (batch.size() == batchEvents) {
          sent += batch.size();
          call = run.send(call, batch, sent - batch.size());
          batchBytes = 0;
        }
      }
    } catch (IOException | RuntimeException e) {
      call.requests.onError(Status.CANCELLED.withDescription("client stopped: " + e.getMessage()).asRuntimeException());
      throw e;
    }
    while (true) {
      call.requests.onCompleted();
      call.awaitDone();
      Throwable failure = call.failure.get();
      if (failure == null) {
        break;
      }
      call = run.retry(call, failure); // throws unless the tenant's rate refused a request
    }
    int unacked;
    synchronized (run.pending) {
      unacked = run.pending.size();
    }
    if (unacked != 0) {
      throw Status.INTERNAL.withDescription("the server completed the call with " + unacked
          + " requests not acknowledged").asRuntimeException();
    }
    return new Result(run.acked.get(), run.ids.get(), run.first.get(), run.last.get(),
        dev.streamfold.core.PositionVector.of(run.lastByPartition.values()).toString(), System.nanoTime() - run.start,
        run.rateWaits, run.rateWaitedMs);
  }

  /**
   * Most refusals for the tenant's ingest rate in a row, with no acknowledgement between them, before the
   * ingestion gives up (each is waited for as the server says; the server's bucket holds at least one request).
   */
  static final int MAX_RATE_REFUSALS_IN_A_ROW = 20;

  /** A request sent and not acknowledged yet: sent again, in order, after a refusal for the tenant's rate. */
  private record Sent(AppendRequest request, long firstOrdinal) {}

  /** One ingestion: what was acknowledged, across the calls that rate refusals make it open. */
  private final class Run {
    final LongConsumer onAcked;
    final java.util.function.LongFunction<String> describe;
    final AtomicLong acked = new AtomicLong();
    final AtomicLong ids = new AtomicLong();
    final AtomicReference<String> first = new AtomicReference<>("");
    final AtomicReference<String> last = new AtomicReference<>("");
    final java.util.concurrent.ConcurrentSkipListMap<Integer, dev.streamfold.core.MessageId> lastByPartition =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Oldest first; guarded by itself. */
    final ArrayDeque<Sent> pending = new ArrayDeque<>();
    final long start = System.nanoTime();
    long seq;
    int rateWaits;
    long rateWaitedMs;
    int refusalsInARow;
    long ackedAtLastRefusal = -1;

    Run(LongConsumer onAcked, java.util.function.LongFunction<String> describe) {
      this.onAcked = onAcked;
      this.describe = describe;
    }

    Call open() {
      Call call = new Call(this);
      call.requests = stub.appendStream(call);
      return call;
    }

    /** Send one request of the batch once the window allows (on a new call after a rate refusal); clear it. */
    Call send(Call call, List<Event> batch, long firstOrdinal) {
      while (true) {
        Throwable failure = call.acquire();
        if (failure == null) {
          break;
        }
        call = retry(call, failure);
      }
      AppendRequest request = AppendRequest.newBuilder().setTenant(tenant).setStream(stream).setRequestSeq(++seq)
          .addAllEvents(batch).build();
      synchronized (pending) {
        pending.add(new Sent(request, firstOrdinal));
      }
      call.requests.onNext(request);
      batch.clear();
      return call;
    }

    /**
     * After a call failed: when the tenant's ingest rate refused its oldest unacknowledged request (nothing
     * of it or of the requests after it was appended: the server ends the call at a refusal), wait as long as
     * the server says and send them all again, in order, on a new call. Any other failure is thrown.
     */
    Call retry(Call failed, Throwable failure) {
      failed.awaitDone();
      java.util.OptionalLong delayMs = retryDelayMs(failure);
      if (delayMs.isEmpty()) {
        rethrow(failure);
      }
      if (acked.get() != ackedAtLastRefusal) {
        refusalsInARow = 0;
        ackedAtLastRefusal = acked.get();
      }
      if (++refusalsInARow > MAX_RATE_REFUSALS_IN_A_ROW) {
        throw Status.fromThrowable(failure).augmentDescription("refused " + MAX_RATE_REFUSALS_IN_A_ROW
            + " times in a row with nothing acknowledged between; the server appended the "
            + String.format("%,d", acked.get()) + " events before that request, nothing from it on")
            .asRuntimeException();
      }
      try {
        Thread.sleep(delayMs.getAsLong());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
      }
      rateWaits++;
      rateWaitedMs += delayMs.getAsLong();
      Call call = open();
      List<Sent> again;
      synchronized (pending) {
        again = new ArrayList<>(pending);
      }
      for (Sent sent : again) {
        Throwable f = call.acquire();
        if (f != null) {
          return retry(call, f);
        }
        call.requests.onNext(sent.request());
      }
      return call;
    }
  }

  /** One AppendStream call and its flow-control window. */
  private final class Call implements ClientResponseObserver<AppendRequest, AppendResponse> {
    final Run run;
    final Semaphore window = new Semaphore(maxUnackedRequests);
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final CountDownLatch done = new CountDownLatch(1);
    volatile ClientCallStreamObserver<AppendRequest> stream;
    io.grpc.stub.StreamObserver<AppendRequest> requests;

    Call(Run run) {
      this.run = run;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<AppendRequest> requestStream) {
      stream = requestStream;
    }

    @Override
    public void onNext(AppendResponse response) {
      Sent expected;
      Sent oldest;
      synchronized (run.pending) {
        oldest = run.pending.peek();
        expected = oldest != null && oldest.request().getRequestSeq() == response.getRequestSeq()
            && oldest.request().getEventsCount() == response.getMessageIdsCount() ? run.pending.poll() : null;
      }
      if (expected == null) {
        failure.compareAndSet(null, Status.INTERNAL.withDescription("unexpected acknowledgement: request_seq "
            + response.getRequestSeq() + " with " + response.getMessageIdsCount() + " message IDs, expected "
            + (oldest == null ? "none" : "request_seq " + oldest.request().getRequestSeq() + " with "
            + oldest.request().getEventsCount())).asRuntimeException());
        stream.cancel("unexpected acknowledgement", null);
        window.release(maxUnackedRequests);
        return;
      }
      if (response.getMessageIdsCount() > 0) {
        run.first.compareAndSet("", response.getMessageIds(0));
        run.last.set(response.getMessageIds(response.getMessageIdsCount() - 1));
        for (String id : response.getMessageIdsList()) {
          dev.streamfold.core.MessageId parsed = dev.streamfold.core.MessageId.parse(id);
          run.lastByPartition.merge(parsed.partition(), parsed, (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
      }
      run.ids.addAndGet(response.getMessageIdsCount());
      run.onAcked.accept(run.acked.addAndGet(expected.request().getEventsCount()));
      window.release();
    }

    @Override
    public void onError(Throwable t) {
      Sent refused;
      synchronized (run.pending) {
        refused = run.pending.peek(); // requests are answered in order: the oldest unacknowledged one failed
      }
      failure.compareAndSet(null, refused == null ? t
          : describeRefusal(t, refused.firstOrdinal(), run.acked.get(), run.describe));
      window.release(maxUnackedRequests);
      done.countDown();
    }

    @Override
    public void onCompleted() {
      done.countDown();
    }

    /** Take a place in the window; the call's failure instead if it failed meanwhile. */
    Throwable acquire() {
      try {
        while (!window.tryAcquire(200, TimeUnit.MILLISECONDS)) {
          if (failure.get() != null) {
            return failure.get();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
      }
      return failure.get();
    }

    /** Wait for the call to end, at most {@link #DEFAULT_FINAL_ACK_TIMEOUT}. */
    void awaitDone() {
      try {
        if (!done.await(DEFAULT_FINAL_ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          stream.cancel("no acknowledgement in time", null);
          throw Status.DEADLINE_EXCEEDED.withDescription("the server did not acknowledge the last requests within "
              + DEFAULT_FINAL_ACK_TIMEOUT.toSeconds() + " s (" + run.acked.get() + " events acknowledged)")
              .asRuntimeException();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stream.cancel("interrupted", e);
        throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
      }
    }
  }

  /**
   * When a failure is the tenant's ingest rate refusing a request: RESOURCE_EXHAUSTED with a
   * {@code google.rpc.RetryInfo} detail, its delay in ms (at least 1); empty for any other failure.
   */
  static java.util.OptionalLong retryDelayMs(Throwable t) {
    if (Status.fromThrowable(t).getCode() != Status.Code.RESOURCE_EXHAUSTED) {
      return java.util.OptionalLong.empty();
    }
    com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(t);
    if (details == null) {
      return java.util.OptionalLong.empty();
    }
    for (com.google.protobuf.Any any : details.getDetailsList()) {
      if (any.is(com.google.rpc.RetryInfo.class)) {
        try {
          com.google.protobuf.Duration d = any.unpack(com.google.rpc.RetryInfo.class).getRetryDelay();
          return java.util.OptionalLong.of(Math.max(1, d.getSeconds() * 1000 + d.getNanos() / 1_000_000));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
          return java.util.OptionalLong.empty();
        }
      }
    }
    return java.util.OptionalLong.empty();
  }

  /**
   * Restate a refusal of the server in terms of the input: each refused event (from the status's
   * {@code google.rpc.BadRequest} details, {@code events[i].field}) by where it came from.
   */
  static Throwable describeRefusal(Throwable t, long firstOrdinal, long appendedBefore,
      java.util.function.LongFunction<String> describe) {
    Status status = Status.fromThrowable(t);
    com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(t);
    if (status.getCode() != Status.Code.INVALID_ARGUMENT || details == null) {
      return t;
    }
    List<String> refused = new ArrayList<>();
    for (com.google.protobuf.Any any : details.getDetailsList()) {
      if (!any.is(com.google.rpc.BadRequest.class)) {
        continue;
      }
      try {
        for (com.google.rpc.BadRequest.FieldViolation v : any.unpack(com.google.rpc.BadRequest.class).getFieldViolationsList()) {
          java.util.regex.Matcher m = java.util.regex.Pattern.compile("events\\[(\\d+)\\]\\.(.*)").matcher(v.getField());
          if (m.matches()) {
            refused.add(describe.apply(firstOrdinal + Long.parseLong(m.group(1))) + ": field '" + m.group(2) + "' "
                + v.getDescription());
          }
        }
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        return t;
      }
    }
    if (refused.isEmpty()) {
      return t;
    }
    String text = refused.get(0) + (refused.size() > 1 ? "; also refused: " + String.join("; ", refused.subList(1,
        Math.min(refused.size(), 5))) + (refused.size() > 5 ? " and " + (refused.size() - 5) + " more" : "") : "")
        + "; the server appended the " + String.format("%,d", appendedBefore) + " events before that request, nothing"
        + " from it on";
    return Status.INVALID_ARGUMENT.withDescription(text).withCause(t).asRuntimeException();
  }

  private static void rethrow(Throwable failure) {
    if (failure == null) {
      return;
    }
    if (failure instanceof StatusRuntimeException s) {
      throw s;
    }
    throw Status.fromThrowable(failure).asRuntimeException();
  }
}
