package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.cli.CliRunner.CliRun;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.grpc.IngestGrpcService;
import dev.streamfold.ledger.grpc.StreamAdminGrpcService;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.ledger.tenant.IngestLimiter;
import dev.streamfold.ledger.tenant.TenantLimits;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile input files through the real {@code streamfold ingest} command, against the real ingest
 * service on a real Pulsar ledger: missing and malformed files, a CSV whose line 1,234,567 has a wrong
 * column count (reported with its line; exactly the rows before it are appended), rows the server would refuse
 * (found by the CLI with the server's checks), a request the server refuses, {@code --skip-bad} (skips and
 * counts), non-UTF-8 text, rows wider than one gRPC request would hold in a batch; and the counted corpus of
 * {@link HostileFileCorpus}, each entry's appended events counted on the ledger.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostileInputIT {
  private static final String TENANT = Testkit.uniqueName("cli");
  /** A tenant whose limits allow at most 7 events per request. */
  private static final String SMALL_BATCHES = Testkit.uniqueName("small");
  /** A tenant allowed 40 events/s in requests of at most 10 events (the server's limiter and GetTenant say so). */
  private static final String RATE_LIMITED = Testkit.uniqueName("slow");
  /** {@code tenant:events} of every append request the server received. */
  private static final List<String> requestSizes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private static PulsarLedger ledger;
  private static Server server;
  private static String target;
  /** The CLI with --server and --tenant {@link #TENANT}. */
  private static CliRunner cli;

  @TempDir
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
    // Records the events of every append request, and answers GetTenant for SMALL_BATCHES only (other tenants:
    // NOT_FOUND, as for a tenant that is not registered), as the server's TenantService does.
    io.grpc.ServerInterceptor countEvents = new io.grpc.ServerInterceptor() {
      @Override
      public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call, io.grpc.Metadata headers,
          io.grpc.ServerCallHandler<Q, R> next) {
        return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
          @Override
          public void onMessage(Q message) {
            if (message instanceof dev.streamfold.api.v1.AppendRequest request) {
              requestSizes.add(request.getTenant() + ":" + request.getEventsCount());
            }
            super.onMessage(message);
          }
        };
      }
    };
    io.grpc.BindableService tenants = new dev.streamfold.api.v1.TenantServiceGrpc.TenantServiceImplBase() {
      @Override
      public void getTenant(dev.streamfold.api.v1.TenantRequest request,
          io.grpc.stub.StreamObserver<dev.streamfold.api.v1.Tenant> response) {
        if (!request.getTenant().equals(SMALL_BATCHES) && !request.getTenant().equals(RATE_LIMITED)) {
          response.onError(io.grpc.Status.NOT_FOUND.withDescription("no tenant " + request.getTenant()).asRuntimeException());
          return;
        }
        response.onNext(dev.streamfold.api.v1.Tenant.newBuilder().setName(request.getTenant()).setLimits(
            dev.streamfold.api.v1.TenantLimits.newBuilder().setMaxEventsPerBatch(
                request.getTenant().equals(SMALL_BATCHES) ? 7 : 10)).build());
        response.onCompleted();
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .maxInboundMessageSize(IngestGrpcService.MAX_REQUEST_BYTES)
        .addService(io.grpc.ServerInterceptors.intercept(new IngestGrpcService(ledger, new IngestLimiter(
            tenant -> tenant.equals(RATE_LIMITED) ? new TenantLimits(TenantLimits.DEFAULT_MAX_EVENT_BYTES, 10, 40)
                : TenantLimits.defaults(), System::nanoTime)).definition(), countEvents))
        .addService(new StreamAdminGrpcService(ledger)).addService(tenants)
        .build().start();
    target = "127.0.0.1:" + server.getPort();
    cli = new CliRunner("--server", target, "--tenant", TENANT);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.shutdownNow();
    }
    if (ledger != null) {
      ledger.close();
    }
  }

  private static StreamRef stream(String name) {
    StreamRef ref = new StreamRef(TENANT, name);
    ledger.createStream(ref, List.of(new StreamColumn("k", "STRING"), new StreamColumn("n", "BIGINT")));
    return ref;
  }

  /** A CSV with a header and {@code rows} rows {@code k<i % 10>,<i>}; row {@code badRow} (if > 0) has 3 fields. */
  private static Path csv(String name, int rows, int... badRows) throws Exception {
    Path file = dir.resolve(name);
    java.util.Set<Integer> bad = new java.util.HashSet<>();
    for (int b : badRows) {
      bad.add(b);
    }
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("k,n\n");
      for (int i = 1; i <= rows; i++) {
        w.write(bad.contains(i) ? "k,1,extra\n" : "k" + (i % 10) + "," + i + "\n");
      }
    }
    return file;
  }

  @Test
  void batchesFitTheTenantsLimit() throws Exception {
    ledger.createStream(new StreamRef(SMALL_BATCHES, "small"), List.of(new StreamColumn("k", "STRING"),
        new StreamColumn("n", "BIGINT")));
    Path file = csv("small.csv", 30);
    CliRun small = new CliRunner("--server", target, "--tenant", SMALL_BATCHES).run("ingest", "small", file.toString(), "--key", "k");
    assertThat(small.exitCode()).isZero();
    assertThat(ledger.describe(new StreamRef(SMALL_BATCHES, "small")).eventCount()).isEqualTo(30);
    assertThat(requestSizes.stream().filter(r -> r.startsWith(SMALL_BATCHES + ":")).map(r -> r.substring(r.indexOf(':') + 1)))
        .as("a tenant created with --max-batch 7 gets requests of at most 7 events").containsExactly("7", "7", "7", "7", "2");
    // a tenant the tenant service does not know keeps the default batch
    StreamRef other = stream("default_batches");
    int rows = dev.streamfold.cli.ingest.StreamIngester.DEFAULT_BATCH_EVENTS + 5;
    assertThat(cli.run("ingest", "default_batches", csv("big.csv", rows).toString(), "--key", "k").exitCode()).isEqualTo(0);
    assertThat(ledger.describe(other).eventCount()).isEqualTo(rows);
    assertThat(requestSizes).contains(TENANT + ":" + dev.streamfold.cli.ingest.StreamIngester.DEFAULT_BATCH_EVENTS);
  }

  /**
   * A file larger than the tenant's token bucket: the server refuses requests for the rate (RESOURCE_EXHAUSTED,
   * nothing of them appended, the call ended); the CLI waits as the server says and sends them again. It
   * stopped at the first refusal with some rows appended, and a re-run appended those twice.
   */
  @Test
  void aFileLargerThanTheTenantsRateIsIngestedAtThatRateExactlyOnceInOrder() throws Exception {
    StreamRef slow = new StreamRef(RATE_LIMITED, "slow");
    ledger.createStream(slow, List.of(new StreamColumn("k", "STRING"), new StreamColumn("n", "BIGINT")));
    Path file = csv("slow.csv", 100);
    CliRun r = new CliRunner("--server", target, "--tenant", RATE_LIMITED).run("ingest", "slow", file.toString(), "--key", "k");
    String printed = r.out();
    assertThat(r.exitCode()).as(printed).isZero();
    assertThat(printed).contains("Appended 100 events to " + RATE_LIMITED + "/slow")
        .containsPattern("Held back by tenant " + RATE_LIMITED + "'s ingest rate limit: [0-9,]+ requests? refused and"
            + " sent again");
    assertThat(ledger.describe(slow).eventCount()).isEqualTo(100);
    List<Long> ns = ledger.read(slow, java.util.Optional.empty(), 200, 30_000).stream()
        .map(e -> Long.parseLong(e.event().payloadJson().replaceAll(".*\"n\":(\\d+).*", "$1"))).toList();
    assertThat(ns).as("every row once, in file order").isEqualTo(java.util.stream.LongStream.rangeClosed(1, 100)
        .boxed().toList());
  }

  @Test
  void aMissingOrMalformedFileIsNamedAndNothingIsAppended() throws Exception {
    StreamRef s = stream("files");
    CliRun r = cli.run("ingest", "files", dir.resolve("nope.csv").toString(), "--key", "k");
    assertThat(r.exitCode()).isNotEqualTo(0);
    assertThat(r.errors()).isEqualTo("error: no such file: " + dir.resolve("nope.csv"));

    Path empty = Files.writeString(dir.resolve("empty.csv"), "");
    assertThat(cli.run("ingest", "files", empty.toString(), "--key", "k").errors()).contains("empty file");

    Path notParquet = Files.writeString(dir.resolve("junk.parquet"), "this is not parquet at all");
    assertThat(cli.run("ingest", "files", notParquet.toString(), "--key", "k").errors())
        .startsWith("error: " + notParquet + ": not a readable Parquet file");

    Path latin1 = dir.resolve("latin1.csv");
    Files.write(latin1, "k,n\nZ\u00fcrich,1\n".getBytes(StandardCharsets.ISO_8859_1));
    assertThat(cli.run("ingest", "files", latin1.toString(), "--key", "k").errors())
        .isEqualTo("error: " + latin1 + " line 2: not UTF-8 text (a malformed byte sequence); convert the file to UTF-8;"
            + " stopped there: nothing was appended");

    Path jsonl = Files.writeString(dir.resolve("bad.jsonl"), "{\"k\":\"a\",\"n\":1}\n[1,2]\n{\"k\":\"b\",\"n\":2}\n");
    CliRun j = cli.run("ingest", "files", jsonl.toString(), "--key", "k");
    assertThat(j.errors()).contains("bad.jsonl").contains("line 2").contains("the 1 events before it were appended");
    assertThat(ledger.describe(s).eventCount()).isEqualTo(1);
  }

  @Test
  void aLineThatIsNotUtf8StopsThereAfterAppendingEveryRowBeforeItAndTheRestGoesOnFromItsRow() throws Exception {
    StreamRef s = stream("latin");
    // a reader that decodes ahead failed thousands of rows early: 8,000 of these 10,000 rows were appended, unsaid
    Path file = dir.resolve("latin.csv");
    StringBuilder good = new StringBuilder("k,n\n");
    for (int i = 1; i <= 10_000; i++) {
      good.append("k").append(i % 10).append(',').append(i).append('\n');
    }
    StringBuilder after = new StringBuilder();
    for (int i = 10_002; i <= 10_101; i++) {
      after.append("k").append(i % 10).append(',').append(i).append('\n');
    }
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    bytes.write(good.toString().getBytes(StandardCharsets.UTF_8));
    bytes.write("caf\u00e9,10001\n".getBytes(StandardCharsets.ISO_8859_1));
    bytes.write(after.toString().getBytes(StandardCharsets.UTF_8));
    Files.write(file, bytes.toByteArray());
    CliRun r = cli.run("ingest", "latin", file.toString(), "--key", "k");
    assertThat(r.exitCode()).isNotEqualTo(0);
    assertThat(r.errors()).startsWith("error: " + file + " line 10002: not UTF-8 text")
        .contains("the 10,000 events before it were appended").contains("--from-row 10001");
    assertThat(ledger.describe(s).eventCount()).isEqualTo(10_000);
    // fixed, the rest goes on from the row the error named: every row once
    Files.write(file, (good + "caf\u00e9,10001\n" + after).getBytes(StandardCharsets.UTF_8));
    CliRun rest = cli.run("ingest", "latin", file.toString(), "--key", "k", "--from-row", "10001");
    assertThat(rest.exitCode()).as(rest.errors()).isEqualTo(0);
    assertThat(rest.out()).contains("Appended 101 events");
    assertThat(ledger.describe(s).eventCount()).isEqualTo(10_101);
    assertThat(cli.run("ingest", "latin", file.toString(), "--key", "k", "--from-row", "20000").errors())
        .isEqualTo("error: --from-row 20000: the file has only 10101 data rows");
  }

  @Test
  void aWrongColumnCountOnLine1234567StopsThereAfterAppendingExactlyTheRowsBeforeIt() throws Exception {
    StreamRef s = stream("big");
    // line 1 is the header: data row 1,234,566 is line 1,234,567
    Path file = csv("big.csv", 1_300_000, 1_234_566);
    CliRun r = cli.run("ingest", "big", file.toString(), "--key", "k");
    assertThat(r.exitCode()).isNotEqualTo(0);
    assertThat(r.errors()).startsWith("error: " + file + " row 1234566 (line 1234567): 3 fields, but the header has 2")
        .contains("the 1,234,565 events before it were appended").contains("nothing from that row on")
        .contains("--skip-bad");
    StreamInfo info = ledger.describe(s);
    assertThat(info.eventCount()).isEqualTo(1_234_565);
    List<StoredEvent> last = ledger.read(s, Optional.empty(), 1, 10_000);
    assertThat(last.get(0).event().payloadJson()).isEqualTo("{\"k\":\"k1\",\"n\":1}");
    assertThat(r.errors()).contains(info.latest().orElseThrow().toString());
  }

  /** A stream with a NOT NULL column and a CSV of 10,000 rows whose rows 5,000 and 5,003 leave it empty. */
  private static Path requiredColumnCsv(String stream) throws Exception {
    ledger.createStream(new StreamRef(TENANT, stream),
        List.of(new StreamColumn("k", "STRING"), StreamColumn.parse("n:BIGINT NOT NULL")));
    Path file = dir.resolve(stream + ".csv");
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("k,n\n");
      for (int i = 1; i <= 10_000; i++) {
        w.write("k" + (i % 10) + "," + (i == 5_000 || i == 5_003 ? "" : Integer.toString(i)) + "\n");
      }
    }
    return file;
  }

  @Test
  void aRowTheServerWouldRefuseStopsThereAfterAppendingExactlyTheRowsBeforeIt() throws Exception {
    Path file = requiredColumnCsv("required");
    CliRun r = cli.run("ingest", "required", file.toString(), "--key", "k");
    assertThat(r.exitCode()).isNotEqualTo(0);
    // checked with the server's own checks before it is sent: a bad row like a malformed one
    assertThat(r.errors()).startsWith("error: " + file + " row 5000 (line 5001): field 'payload_json.n' is missing or null,"
        + " but the stream's schema requires it (column n BIGINT NOT NULL); stopped there: the 4,999 events before it"
        + " were appended");
    assertThat(ledger.describe(new StreamRef(TENANT, "required")).eventCount()).isEqualTo(4_999);
    // the way on it names appends each good row once (a re-run of the whole file appended the 4,999 again)
    assertThat(r.errors()).contains("skip bad rows with --from-row 5000 --skip-bad");

    CliRun skipped = cli.run("ingest", "required", file.toString(), "--key", "k", "--from-row", "5000", "--skip-bad");
    assertThat(skipped.exitCode()).isEqualTo(0);
    assertThat(skipped.out()).contains("Appended 4,999 events").contains("Skipped 2 bad rows (--skip-bad):")
        .contains(file + " row 5003 (line 5004): field 'payload_json.n' is missing or null");
    assertThat(ledger.describe(new StreamRef(TENANT, "required")).eventCount()).isEqualTo(9_998);
  }

  @Test
  void skipBadSkipsJsonLinesValuesOfTheWrongType() throws Exception {
    StreamRef s = stream("typed");
    // JSON Lines values are not typed by the CLI: the server's check of the column type finds them
    Path file = Files.writeString(dir.resolve("typed.jsonl"),
        "{\"k\":\"a\",\"n\":1}\n{\"k\":\"b\",\"n\":\"two\"}\n{\"k\":\"c\",\"n\":3}\n{\"k\":\"d\",\"n\":4.5}\n");
    CliRun r = cli.run("ingest", "typed", file.toString(), "--key", "k", "--skip-bad");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out()).contains("Appended 2 events").contains("Skipped 2 bad rows (--skip-bad):")
        .contains(file + " row 2 (line 2): field 'payload_json.n'").contains(file + " row 4 (line 4): field 'payload_json.n'");
    assertThat(ledger.read(s, Optional.empty(), 10, 10_000)).extracting(e -> e.event().key()).containsExactly("a", "c");
  }

  @Test
  void aRequestTheServerRefusesIsNamedByItsRows() throws Exception {
    // Without the CLI's own check (e.g. the stream's schema changed since the CLI read it), the server refuses the
    // whole request, and the error names the refused rows by their lines.
    Path file = requiredColumnCsv("required_server");
    StreamfoldClient client = StreamfoldClient.connect(target, null);
    Throwable refused;
    try (client; RowReader reader = RowReader.open(file, FileFormat.CSV, java.util.Map.of("k", "STRING", "n", "BIGINT"))) {
      refused = org.assertj.core.api.Assertions.catchThrowable(() -> Ingestion.run(client, TENANT, "required_server",
          reader, new EventMapper("k", null), Long.MAX_VALUE, "ingest", new PrintStream(new ByteArrayOutputStream())));
    }
    // 2,000 events per request: rows 4,001..6,000 are one request, refused whole; the two before are in
    assertThat(refused).hasMessageStartingWith("INVALID_ARGUMENT: " + file + " row 5000 (line 5001): field 'payload_json.n'"
        + " is missing or null, but the stream's schema requires it (column n BIGINT NOT NULL); also refused: " + file
        + " row 5003 (line 5004)").hasMessageContaining("the server appended the 4,000 events before that request,"
        + " nothing from it on");
    assertThat(ledger.describe(new StreamRef(TENANT, "required_server")).eventCount()).isEqualTo(4_000);
  }

  @Test
  void skipBadSkipsCountsAndReports() throws Exception {
    StreamRef s = stream("skipping");
    Path file = csv("skip.csv", 10_000, 3, 500, 501, 9_000, 9_001, 9_002, 10_000);
    CliRun r = cli.run("ingest", "skipping", file.toString(), "--key", "k", "--skip-bad");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out()).contains("Appended 9,993 events").contains("Skipped 7 bad rows (--skip-bad), the first 5:")
        .contains(file + " row 3 (line 4): 3 fields, but the header has 2")
        .contains(file + " row 9000 (line 9001)").doesNotContain("row 9002 (line");
    assertThat(ledger.describe(s).eventCount()).isEqualTo(9_993);
  }

  @Test
  void wideRowsAreBatchedByBytesUnderTheServersRequestLimit() throws Exception {
    StreamRef s = stream("wide");
    Path file = dir.resolve("wide.csv");
    String wide = "w".repeat(10_000);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("k,n,text\n");
      for (int i = 0; i < 3_000; i++) {
        w.write("k" + i + "," + i + "," + wide + "\n"); // 2,000 of these would be a 20 MB request
      }
    }
    CliRun r = cli.run("ingest", "wide", file.toString(), "--key", "k");
    assertThat(r.errors()).isEmpty();
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(ledger.describe(s).eventCount()).isEqualTo(3_000);
  }

  /**
   * Every entry of {@link HostileFileCorpus}: its exit code, its one error line, no stack trace, exactly the events
   * it must append (counted on the ledger), and after it the other streams unchanged and the server answering.
   */
  @Test
  void hostileFileCorpus() throws Exception {
    List<HostileFileCorpus.Entry> entries = HostileFileCorpus.entries();
    StreamRef typed = new StreamRef(TENANT, HostileFileCorpus.TYPED);
    ledger.createStream(typed, List.of(new StreamColumn("k", "STRING"), new StreamColumn("n", "BIGINT"),
        new StreamColumn("t", "TIMESTAMP")));
    StreamRef free = new StreamRef(TENANT, HostileFileCorpus.FREE);
    ledger.createStream(free, List.of());
    stream("corpus_bystander"); // listed after every entry, with its 5 events
    assertThat(cli.run("ingest", "corpus_bystander", csv("bystander.csv", 5).toString(), "--key", "k").exitCode()).isEqualTo(0);
    List<String> wrong = new java.util.ArrayList<>();
    // Each stream's event count as last seen: an entry appends to its own stream only, so after it the other
    // stream still has the count seen before it (one describe per stream and entry, not three).
    Map<StreamRef, Long> seen = new java.util.HashMap<>(Map.of(typed, ledger.describe(typed).eventCount(),
        free, ledger.describe(free).eventCount()));
    int i = 0;
    try (StreamfoldClient client = StreamfoldClient.connect(target, null)) {
    for (HostileFileCorpus.Entry entry : entries) {
      i++;
      Path file = Files.createDirectories(dir.resolve("corpus").resolve(Integer.toString(i))).resolve(entry.fileName());
      entry.maker().make(file);
      StreamRef into = new StreamRef(TENANT, entry.stream());
      StreamRef other = into.equals(typed) ? free : typed;
      List<String> args = new java.util.ArrayList<>(List.of("ingest", entry.stream(), file.toString()));
      args.addAll(entry.options());
      CliRun r = cli.run(args.toArray(String[]::new));
      int errorAt = r.err().indexOf("error: ");
      String error = errorAt < 0 ? "" : r.err().substring(errorAt + "error: ".length()).strip();
      String expected = entry.error().replace("{file}", ErrorHandler.oneLine(file.toString()));
      long now = ledger.describe(into).eventCount();
      long appended = now - seen.put(into, now);
      boolean ok = entry.exitCode() == r.exitCode() && appended == entry.appended()
          && (expected.isEmpty() ? error.isEmpty() : error.startsWith(expected))
          && !r.err().contains("\tat ") && !r.err().contains("Exception") && error.lines().count() <= 1;
      if (!ok) {
        wrong.add("#" + i + " " + entry.name() + ": exit " + r.exitCode() + ", appended " + appended + ", error: "
            + error.replace(ErrorHandler.oneLine(file.toString()), "{file}") + (r.err().contains("\tat ") ? " [STACK TRACE]" : ""));
      }
      assertThat(ledger.describe(other).eventCount()).as("the other stream after " + entry.name()).isEqualTo(seen.get(other));
      assertThat(client.admin().listStreams(dev.streamfold.api.v1.ListStreamsRequest.newBuilder().setTenant(TENANT)
          .build()).getStreamsList()).as("the server answers after " + entry.name())
          .anyMatch(s -> s.getName().equals("corpus_bystander") && s.getEventCount() == 5);
    }
    }
    assertThat(wrong).as("entries whose answer differs").isEmpty();
    assertThat(entries).hasSize(HostileFileCorpus.SIZE);
    CliRun list = cli.run("stream", "list");
    assertThat(list.exitCode()).as("the server still answers").isEqualTo(0);
    assertThat(list.out()).contains("corpus_bystander");
  }
}
