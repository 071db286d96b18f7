package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Testkit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * Hostile gRPC ingestion against the whole server on a real Netty gRPC port (the in-process transport
 * has no message size limit), real Pulsar, Flink and Redis. Each rejected input must get a clear status
 * naming the problem, leave the stream (event count, latest message ID) and a view row exactly as they
 * were, and the server must keep serving. Inputs that are legal but odd (NUL and emoji keys, duplicate
 * idempotency keys in one batch, an event time in 1970) are stored exactly, on another stream.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostileIngestIT {
  private static final String TENANT = Testkit.uniqueName("hostile");
  private static final String STREAM = "events";
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("server-hostile"), TENANT, Duration.ofMillis(500)).overTcp();
  private static PulsarLedger ledger;
  private String before;

  @BeforeAll
  static void start() {
    ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
    createStream(STREAM);
    createStream("odd");
    AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM);
    for (int i = 0; i < 10; i++) {
      request.addEvents(event("k" + (i % 3), "{\"n\":" + i + "}"));
    }
    ingest().append(request.build());
    TransformServiceGrpc.newBlockingStub(SERVER.channel()).create(CreateTransformRequest.newBuilder().setTenant(TENANT)
        .setName("counts").setSql("SELECT _key AS k, COUNT(*) AS events, SUM(n) AS total FROM events GROUP BY _key")
        .build());
    SERVER.clients().awaitLive("counts", 10);
  }

  @AfterAll
  static void stop() {
    if (ledger != null) {
      ledger.close();
    }
  }

  private static void createStream(String name) {
    StreamAdminGrpc.newBlockingStub(SERVER.channel()).createStream(CreateStreamRequest.newBuilder().setTenant(TENANT)
        .setName(name).addColumns(Column.newBuilder().setName("n").setType("BIGINT"))
        .addColumns(Column.newBuilder().setName("t").setType("TIMESTAMP")).build());
  }

  private static IngestServiceGrpc.IngestServiceBlockingStub ingest() {
    return IngestServiceGrpc.newBlockingStub(SERVER.channel()).withDeadlineAfter(2, TimeUnit.MINUTES);
  }

  private static Event event(String key, String payload) {
    return Event.newBuilder().setKey(key).setEventTimeMs(1_000_000).setPayloadJson(payload).build();
  }

  private static AppendRequest one(Event event) {
    return AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM).addEvents(event).build();
  }

  private static StreamInfo info(String stream) {
    return StreamAdminGrpc.newBlockingStub(SERVER.channel()).listStreams(ListStreamsRequest.newBuilder().setTenant(TENANT).build())
        .getStreamsList().stream().filter(s -> s.getName().equals(stream)).findFirst().orElseThrow();
  }

  /** The stream's event count and latest message ID, and a row of its view. */
  private static String state() {
    StreamInfo info = info(STREAM);
    return info.getEventCount() + " " + info.getLatestMessageId() + " " + new java.util.TreeMap<>(SERVER.resp().sync().hgetall("counts:k0"));
  }

  @BeforeEach
  void recordState() {
    before = state();
    assertThat(before).startsWith("10 ").contains("events=4").contains("total=18");
  }

  @AfterEach
  void nothingChangedAndTheServerServes() {
    assertThat(state()).isEqualTo(before);
    assertThat(SERVER.resp().sync().ping()).isEqualTo("PONG");
    assertThat(ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream("odd")
        .addEvents(event("alive", "{}")).build()).getMessageIdsCount()).isEqualTo(1);
  }

  private static void assertStatus(Executable call, Status.Code code, String... fragments) {
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class, call);
    assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
    for (String fragment : fragments) {
      assertThat(e.getStatus().getDescription()).contains(fragment);
    }
    assertThat(e.getStatus().getDescription()).as("a short message").hasSizeLessThan(600);
  }

  @Test
  void badStreamNamesAreRefusedAndQuotedSafely() {
    for (String name : List.of("", "a/b", "..", "../../other/ledger/events", "tab\there", "nul\0", "s".repeat(10_000))) {
      assertStatus(() -> ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream(name)
          .addEvents(event("k", "{}")).build()), Status.Code.INVALID_ARGUMENT, "invalid stream name");
      assertStatus(() -> StreamAdminGrpc.newBlockingStub(SERVER.channel()).createStream(CreateStreamRequest.newBuilder()
          .setTenant(TENANT).setName(name).build()), Status.Code.INVALID_ARGUMENT, "invalid stream name");
    }
    assertStatus(() -> ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream("s".repeat(10_000))
        .addEvents(event("k", "{}")).build()), Status.Code.INVALID_ARGUMENT, "... (10000 characters)");
    assertStatus(() -> ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream("tab\there")
        .addEvents(event("k", "{}")).build()), Status.Code.INVALID_ARGUMENT, "'tab\\u0009here'");
  }

  @Test
  void badPayloadsNameTheEventAndTheField() {
    assertStatus(() -> ingest().append(one(event("k", "not json"))), Status.Code.INVALID_ARGUMENT,
        "event 0: field 'payload_json' is not valid JSON");
    assertStatus(() -> ingest().append(one(event("k", "[{\"n\":1}]"))), Status.Code.INVALID_ARGUMENT,
        "event 0: field 'payload_json' must be a JSON object, got array");
    String deep = "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
    assertStatus(() -> ingest().append(one(event("k", deep))), Status.Code.INVALID_ARGUMENT,
        "event 0: field 'payload_json' is nested deeper than 1000 levels");
    assertStatus(() -> ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM)
        .addEvents(event("k", "{\"n\":1}")).addEvents(event("k", "{\"n\":\"two\"}")).build()),
        Status.Code.INVALID_ARGUMENT, "event 1: field 'payload_json.n' must be a 64-bit integer");
    assertStatus(() -> ingest().append(one(event("k", "{\"t\":9223372036854775807}"))), Status.Code.INVALID_ARGUMENT,
        "field 'payload_json.t'", "years 0000..9999");
    // 1.2 MB of UTF-8 in 600,000 characters: the tenant's event size limit (1 MiB by default) refuses it
    // before the payload's own limit would.
    assertStatus(() -> ingest().append(one(event("k", "{\"s\":\"" + "é".repeat(600_000) + "\"}"))),
        Status.Code.INVALID_ARGUMENT, "event 0:", "allows at most 1048576 bytes per event");
  }

  @Test
  void aBatchWithSeveralBadEventsNamesThemAllAndStoresNone() throws Exception {
    AppendRequest.Builder batch = AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM);
    for (int i = 0; i < 20; i++) {
      batch.addEvents(i % 4 == 1 ? event("k", "{\"n\":\"bad\"}") : i == 6 ? event("", "{}") : event("k", "{\"n\":1}"));
    }
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ingest().append(batch.build()));
    assertThat(e.getStatus().getDescription()).startsWith("event 1: field 'payload_json.n' must be a 64-bit integer")
        .contains("also invalid: event 5 (payload_json.n), event 6 (key), event 9 (payload_json.n), event 13 (payload_json.n) and 1 more")
        .endsWith("(nothing of the request's 20 events was stored: a request is all-or-nothing)");
    com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(e);
    com.google.rpc.BadRequest bad = details.getDetails(0).unpack(com.google.rpc.BadRequest.class);
    assertThat(bad.getFieldViolationsList()).extracting(com.google.rpc.BadRequest.FieldViolation::getField)
        .containsExactly("events[1].payload_json.n", "events[5].payload_json.n", "events[6].key",
            "events[9].payload_json.n", "events[13].payload_json.n", "events[17].payload_json.n");
  }

  @Test
  void onAppendStreamNothingAfterARefusedRequestIsAppended() throws Exception {
    long start = info("odd").getEventCount();
    List<AppendResponse> acknowledged = new java.util.concurrent.CopyOnWriteArrayList<>();
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    StreamObserver<AppendRequest> requests = IngestServiceGrpc.newStub(SERVER.channel()).appendStream(new StreamObserver<>() {
      @Override
      public void onNext(AppendResponse value) {
        acknowledged.add(value);
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(t);
      }

      @Override
      public void onCompleted() {
        ended.completeExceptionally(new AssertionError("completed"));
      }
    });
    for (int seq = 1; seq <= 20; seq++) {
      AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream("odd").setRequestSeq(seq);
      for (int i = 0; i < 10; i++) {
        request.addEvents(seq == 3 && i == 4 ? event("k", "{\"n\":\"bad\"}") : event("k", "{\"n\":" + i + "}"));
      }
      requests.onNext(request.build());
    }
    requests.onCompleted();
    Status status = Status.fromThrowable(ended.get(1, TimeUnit.MINUTES));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("request_seq 3: event 4: field 'payload_json.n' must be a 64-bit integer");
    assertThat(acknowledged).extracting(AppendResponse::getRequestSeq).containsExactly(1L, 2L);
    assertThat(info("odd").getEventCount()).as("requests 1 and 2 only").isEqualTo(start + 20);
  }

  /**
   * The streams, transformations and tenants the server lists (names and streams' event counts), the stream
   * {@value #STREAM}'s latest message ID and a row of its view: what a refused request must leave as it was.
   */
  private static String everything() {
    String streams = StreamAdminGrpc.newBlockingStub(SERVER.channel()).listStreams(ListStreamsRequest.newBuilder()
        .setTenant(TENANT).build()).getStreamsList().stream().map(s -> s.getName() + "=" + s.getEventCount())
        .sorted().toList().toString();
    String transforms = TransformServiceGrpc.newBlockingStub(SERVER.channel()).list(dev.streamfold.api.v1.ListTransformsRequest
        .newBuilder().setTenant(TENANT).build()).getTransformsList().stream()
        .map(dev.streamfold.api.v1.Transform::getName).sorted().toList().toString();
    String tenants = dev.streamfold.api.v1.TenantServiceGrpc.newBlockingStub(SERVER.channel()).listTenants(
        dev.streamfold.api.v1.ListTenantsRequest.getDefaultInstance()).getTenantsList().stream()
        .map(t -> t.getName() + "/" + t.getTokensCount()).sorted().toList().toString();
    return state() + " " + streams + " " + transforms + " " + tenants;
  }

  /**
   * The gRPC corpus of requests that do not parse ({@link MalformedRequestCorpus}: a string field that is not
   * UTF-8, bytes that are not protobuf, on every method of every service, and a payload with a lone surrogate
   * escape), sent as raw bytes on the real Netty port: each gets INVALID_ARGUMENT with the field named (never
   * grpc-java's UNKNOWN), and after each the server still answers and nothing changed.
   */
  @Test
  void requestsThatDoNotParseAreRefusedNamingTheFieldOnEveryMethod() throws Exception {
    List<MalformedRequestCorpus.Case> corpus = MalformedRequestCorpus.cases(TENANT, STREAM);
    String everything = everything();
    java.util.Set<String> methods = new java.util.TreeSet<>();
    for (MalformedRequestCorpus.Case c : corpus) {
      MalformedRequestCorpus.Outcome outcome = MalformedRequestCorpus.call(SERVER.channel(), c.method(), c.requests());
      assertThat(outcome.status().getCode()).as(c.name() + ": " + outcome.status()).isEqualTo(c.code());
      assertThat(outcome.status().getDescription()).as(c.name()).contains(c.fragment()).hasSizeLessThan(700);
      assertThat(outcome.responses()).as(c.name()).isEmpty();
      assertThat(everything()).as("after " + c.name()).isEqualTo(everything);
      methods.add(c.method().getFullMethodName());
    }
    int served = MalformedRequestCorpus.SERVICES.stream().mapToInt(s -> s.getMethods().size()).sum();
    assertThat(methods).hasSize(served);
    assertThat(corpus).hasSizeGreaterThanOrEqualTo(150);
    System.out.println("gRPC corpus of requests that do not parse: " + corpus.size() + " cases, " + served
        + " methods of " + MalformedRequestCorpus.SERVICES.size() + " services");
  }

  /**
   * On AppendStream a request that does not parse ends the call after the responses to the requests before it:
   * exactly those are stored; it and those after it are not.
   */
  @Test
  void onAppendStreamARequestThatDoesNotParseEndsTheCallAfterTheOnesBeforeItAreAcknowledged() throws Exception {
    long start = info("odd").getEventCount();
    List<byte[]> requests = new java.util.ArrayList<>();
    for (int seq = 1; seq <= 5; seq++) {
      AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream("odd").setRequestSeq(seq);
      for (int i = 0; i < 10; i++) {
        request.addEvents(event(seq == 3 && i == 7 ? "bad@" : "k", "{\"n\":" + i + "}"));
      }
      byte[] bytes = request.build().toByteArray();
      if (seq == 3) {
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("bad@") + 3;
        bytes[at] = (byte) 0xFE;
      }
      requests.add(bytes);
    }
    MalformedRequestCorpus.Outcome outcome = MalformedRequestCorpus.call(SERVER.channel(),
        IngestServiceGrpc.getAppendStreamMethod(), requests);
    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(outcome.status().getDescription()).isEqualTo("request 2 of the call (counting from 0): malformed"
        + " streamfold.v1.AppendRequest: field 'events[7].key' is not valid UTF-8: byte 0xFE at offset 3 of its 4"
        + " bytes (protobuf string fields hold UTF-8 text); the server processed every request before it and none"
        + " from it on");
    List<Long> acknowledged = new java.util.ArrayList<>();
    for (byte[] response : outcome.responses()) {
      acknowledged.add(AppendResponse.parseFrom(response).getRequestSeq());
    }
    assertThat(acknowledged).containsExactly(1L, 2L);
    assertThat(info("odd").getEventCount()).as("requests 1 and 2 only").isEqualTo(start + 20);
  }

  @Test
  void aFiftyMegabyteEventIsRefusedByItsLengthPrefix() {
    String payload = "{\"s\":\"" + "x".repeat(50 * 1024 * 1024) + "\"}";
    assertStatus(() -> ingest().append(one(event("k", payload))), Status.Code.RESOURCE_EXHAUSTED, "4194304");
  }

  @Test
  void aMillionEventBatchIsRefused() throws Exception {
    AppendRequest.Builder small = AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM);
    Event tiny = event("k", "{}");
    for (int i = 0; i < 1_000_000; i++) {
      small.addEvents(tiny);
    }
    // ~20 MB on the wire: over the 4 MiB request limit
    assertStatus(() -> ingest().append(small.build()), Status.Code.RESOURCE_EXHAUSTED, "4194304");
    // a million empty events fit in 2 MB: counted on the wire, refused before a million objects are built
    AppendRequest.Builder empty = AppendRequest.newBuilder().setTenant(TENANT).setStream(STREAM);
    for (int i = 0; i < 1_000_000; i++) {
      empty.addEvents(Event.getDefaultInstance());
    }
    AppendRequest emptyEvents = empty.build();
    assertThat(emptyEvents.getSerializedSize()).isLessThan(4 * 1024 * 1024);
    assertStatus(() -> ingest().append(emptyEvents), Status.Code.INVALID_ARGUMENT,
        "events: 1000000 events in one request; at most 10000");
    // the same over AppendStream: the call ends with the error, nothing stored
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    StreamObserver<AppendRequest> requests = IngestServiceGrpc.newStub(SERVER.channel()).appendStream(new StreamObserver<>() {
      @Override
      public void onNext(AppendResponse value) {
        ended.completeExceptionally(new AssertionError("acknowledged: " + value));
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(t);
      }

      @Override
      public void onCompleted() {
        ended.completeExceptionally(new AssertionError("completed"));
      }
    });
    requests.onNext(emptyEvents.toBuilder().setRequestSeq(1).build());
    requests.onCompleted();
    assertThat(Status.fromThrowable(ended.get(1, TimeUnit.MINUTES)).getDescription()).contains("1000000 events");
  }

  @Test
  void eventTimesFarInTheFutureOrNegativeAreRefused() {
    for (long t : new long[] {Long.MAX_VALUE, System.currentTimeMillis() + Duration.ofDays(400).toMillis()}) {
      assertStatus(() -> ingest().append(one(event("k", "{}").toBuilder().setEventTimeMs(t).build())),
          Status.Code.INVALID_ARGUMENT, "event 0: field 'event_time_ms' is " + t, "more than 1 day after the server's clock");
    }
    for (long t : new long[] {-1, Long.MIN_VALUE}) {
      assertStatus(() -> ingest().append(one(event("k", "{}").toBuilder().setEventTimeMs(t).build())),
          Status.Code.INVALID_ARGUMENT, "event 0: field 'event_time_ms' is negative");
    }
  }

  @Test
  void oddButLegalEventsAreStoredExactly() throws Exception {
    StreamRef odd = new StreamRef(TENANT, "odd");
    long start = info("odd").getEventCount();
    List<String> keys = List.of("nul\0key", "emoji \uD83D\uDE00 \uD83C\uDDE9\uD83C\uDDEA", "crlf\r\nkey", "Zürich");
    AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(TENANT).setStream("odd");
    for (String key : keys) {
      request.addEvents(event(key, "{\"n\":1}").toBuilder().setEventTimeMs(1).putHeaders("h\0", "v\uD83D\uDE00"));
    }
    // one event twice in one batch, with its idempotency key: the second is answered with the first's message ID
    request.addEvents(event("dup", "{\"n\":1}").toBuilder().setIdempotencyKey("once"));
    request.addEvents(event("dup", "{\"n\":1}").toBuilder().setIdempotencyKey("once"));
    AppendResponse response = ingest().append(request.build());
    assertThat(response.getRepeatList()).containsExactly(false, false, false, false, false, true);
    assertThat(response.getMessageIds(5)).isEqualTo(response.getMessageIds(4));
    assertThat(info("odd").getEventCount()).isEqualTo(start + 5);
    List<StoredEvent> stored = ledger.read(odd, Optional.empty(), 1_000, 10_000);
    List<StoredEvent> mine = stored.subList(stored.size() - 5, stored.size());
    for (int i = 0; i < keys.size(); i++) {
      assertThat(mine.get(i).event().key()).isEqualTo(keys.get(i));
      assertThat(mine.get(i).event().eventTimeMs()).isEqualTo(1);
      assertThat(mine.get(i).event().headers()).containsEntry("h\0", "v\uD83D\uDE00");
    }
    assertThat(mine.get(4).event().payloadJson()).isEqualTo("{\"n\":1}");

    // the key reused for another event (it was answered as a repeat, and the event dropped): refused, with the
    // stored event's message ID and a field violation naming the key; nothing of the request stored
    AppendRequest reuse = AppendRequest.newBuilder().setTenant(TENANT).setStream("odd")
        .addEvents(event("new", "{\"n\":3}"))
        .addEvents(event("dup", "{\"n\":2}").toBuilder().setIdempotencyKey("once")).build();
    assertStatus(() -> ingest().append(reuse), Status.Code.INVALID_ARGUMENT,
        "event 1: field 'idempotency_key' was already used for another event at message ID " + response.getMessageIds(4),
        "a new event needs a new key", "nothing of the request's 2 events was stored");
    StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ingest().append(reuse));
    com.google.rpc.BadRequest violations = io.grpc.protobuf.StatusProto.fromThrowable(refused).getDetails(0)
        .unpack(com.google.rpc.BadRequest.class);
    assertThat(violations.getFieldViolationsList()).singleElement()
        .satisfies(v -> assertThat(v.getField()).isEqualTo("events[1].idempotency_key"));
    assertThat(info("odd").getEventCount()).isEqualTo(start + 5);
  }

  @Test
  void aStreamThatDoesNotExistIsNamed() {
    assertStatus(() -> ingest().append(AppendRequest.newBuilder().setTenant(TENANT).setStream("nope")
        .addEvents(event("k", "{}")).build()), Status.Code.NOT_FOUND, "stream 'nope' does not exist");
    assertThatThrownBy(() -> ingest().append(AppendRequest.newBuilder().setTenant("Bad Tenant").setStream(STREAM)
        .addEvents(event("k", "{}")).build())).hasMessageContaining("invalid tenant name 'Bad Tenant'");
  }
}
