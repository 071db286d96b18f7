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
   * @param elapsedNanos time from the first request to the last acknowledgement
   */
  public record Result(long events, long messageIds, String firstMessageId, String lastMessageId,
      long elapsedNanos) {
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
    Semaphore window = new Semaphore(maxUnackedRequests);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong acked = new AtomicLong();
    AtomicLong ids = new AtomicLong();
    AtomicReference<String> first = new AtomicReference<>("");
    AtomicReference<String> last = new AtomicReference<>("");
    ArrayDeque<long[]> pending = new ArrayDeque<>(); // {request_seq, events, first ordinal}, guarded by itself
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<ClientCallStreamObserver<AppendRequest>> callRef = new AtomicReference<>();

    ClientResponseObserver<AppendRequest, AppendResponse> responses = new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<AppendRequest> requestStream) {
        callRef.set(requestStream);
      }

      @Override
      public void onNext(AppendResponse response) {
        long[] expected;
        synchronized (pending) {
          expected = pending.poll();
        }
        if (expected == null || expected[0] != response.getRequestSeq()
            || expected[1] != response.getMessageIdsCount()) {
          failure.compareAndSet(null, Status.INTERNAL.withDescription("unexpected acknowledgement: request_seq "
              + response.getRequestSeq() + " with " + response.getMessageIdsCount() + " message IDs, expected "
              + (expected == null ? "none" : "request_seq " + expected[0] + " with " + expected[1]))
              .asRuntimeException());
          callRef.get().cancel("unexpected acknowledgement", null);
          window.release(maxUnackedRequests);
          return;
        }
        if (response.getMessageIdsCount() > 0) {
          first.compareAndSet("", response.getMessageIds(0));
          last.set(response.getMessageIds(response.getMessageIdsCount() - 1));
        }
        ids.addAndGet(response.getMessageIdsCount());
        onAcked.accept(acked.addAndGet(expected[1]));
        window.release();
      }

      @Override
      public void onError(Throwable t) {
        long[] refused;
        synchronized (pending) {
          refused = pending.peek(); // requests are answered in order: the oldest unacknowledged one failed
        }
        failure.compareAndSet(null, refused == null ? t : describeRefusal(t, refused[2], acked.get(), describe));
        window.release(maxUnackedRequests);
        done.countDown();
      }

      @Override
      public void onCompleted() {
        done.countDown();
      }
    };

    long start = System.nanoTime();
    io.grpc.stub.StreamObserver<AppendRequest> requests = stub.appendStream(responses);
    long seq = 0;
    try {
      List<Event> batch = new ArrayList<>(batchEvents);
      long batchBytes = 0;
      long sent = 0;
      while (true) {
        Event event = source.next();
        long eventBytes = event == null ? 0 : event.getSerializedSize() + 6L; // with its tag and length prefix
        if (!batch.isEmpty() && (event == null || batchBytes + eventBytes > MAX_BATCH_BYTES)) {
          sent += batch.size();
          send(requests, batch, ++seq, sent - batch.size(), window, failure, pending);
          batchBytes = 0;
        }
        if (event == null) {
          break;
        }
        batch.add(event);
        batchBytes += eventBytes;
        if (batch.size() == batchEvents) {
          sent += batch.size();
          send(requests, batch, ++seq, sent - batch.size(), window, failure, pending);
          batchBytes = 0;
        }
      }
      requests.onCompleted();
    } catch (IOException | RuntimeException e) {
      requests.onError(Status.CANCELLED.withDescription("client stopped: " + e.getMessage()).asRuntimeException());
      throw e;
    }
    try {
      if (!done.await(DEFAULT_FINAL_ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        callRef.get().cancel("no acknowledgement in time", null);
        throw Status.DEADLINE_EXCEEDED.withDescription("the server did not acknowledge the last requests within "
            + DEFAULT_FINAL_ACK_TIMEOUT.toSeconds() + " s (" + acked.get() + " events acknowledged)")
            .asRuntimeException();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callRef.get().cancel("interrupted", e);
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    }
    rethrow(failure.get());
    long sent;
    synchronized (pending) {
      sent = pending.size();
    }
    if (sent != 0) {
      throw Status.INTERNAL.withDescription("the server completed the call with " + sent
          + " requests not acknowledged").asRuntimeException();
    }
    return new Result(acked.get(), ids.get(), first.get(), last.get(), System.nanoTime() - start);
  }

  /** Send one request of the batch once the window allows, and clear the batch. */
  private void send(io.grpc.stub.StreamObserver<AppendRequest> requests, List<Event> batch, long seq, long firstOrdinal,
      Semaphore window, AtomicReference<Throwable> failure, ArrayDeque<long[]> pending) {
    acquire(window, failure);
    synchronized (pending) {
      pending.add(new long[] {seq, batch.size(), firstOrdinal});
    }
    requests.onNext(AppendRequest.newBuilder().setTenant(tenant).setStream(stream).setRequestSeq(seq)
        .addAllEvents(batch).build());
    batch.clear();
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

  private static void acquire(Semaphore window, AtomicReference<Throwable> failure) {
    try {
      while (!window.tryAcquire(200, TimeUnit.MILLISECONDS)) {
        rethrow(failure.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    }
    rethrow(failure.get());
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
