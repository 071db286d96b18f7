package dev.streamfold.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateStreamResponse;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import dev.streamfold.deploy.local.stack.LocalStack;
import dev.streamfold.deploy.local.stack.StackState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamfold demo}: the main job end to end on real data. Starts the local stack, ingests
 * 2,900,000 US flights over gRPC, creates the SQL view {@code delays_by_origin} (a Flink job that
 * backfills, then tails), ingests the last 100,000 flights while the view is live, and checks every
 * origin of the view, read over RESP, against a plain group-by of the same rows.
 */
@Command(name = "demo", description = "Run the main job end to end on 3,000,000 real US flights: local stack,"
    + " gRPC ingestion, Flink SQL view delays_by_origin (backfill, then live), reads over RESP, checked against"
    + " a plain group-by. Leaves the stack running.")
final class DemoCommand implements Callable<Integer> {
  static final String STREAM = "flights";
  static final String VIEW = "delays_by_origin";
  static final String SQL = "SELECT origin, COUNT(*) AS flights, AVG(CAST(delay AS DOUBLE)) AS avg_delay,"
      + " SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed FROM flights GROUP BY origin";
  static final List<String> COLUMNS = List.of("date:TIMESTAMP", "delay:INT", "distance:INT", "origin:STRING",
      "destination:STRING");
  static final long ALL_ROWS = 3_000_000L;
  static final long LIVE_ROWS = 100_000L;
  static final String SHOWCASE_ORIGIN = "ATL";
  private static final int STEPS = 9;

  @Mixin
  DataDirOption dataDir = new DataDirOption();

  @Option(names = "--tenant", paramLabel = "NAME", defaultValue = "demo", description = "Tenant (default: ${DEFAULT-VALUE}).")
  String tenant;

  @Option(names = "--clean", description = "Stop the local stack and delete its data first (the downloaded data set"
      + " is kept), then start fresh.")
  boolean clean;

  @Option(names = "--rows", paramLabel = "N", defaultValue = "3000000",
      description = "Use the first N flights: N-100,000 before the view exists, the last 100,000 (at most N/2) while"
          + " it is live (default: ${DEFAULT-VALUE}, all of them).")
  long rows;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "1800",
      description = "Longest wait for the view to catch up (default: ${DEFAULT-VALUE}).")
  long timeoutS;

  @Option(names = "--tiered", description = "Also offload the ledger to the local S3 endpoint, show `ledger info` "
      + "before and after, and rebuild a second view from the S3-backed history.")
  boolean tiered;

  private final PrintStream out = System.out;
  private int step;

  @Override
  public Integer call() throws IOException, InterruptedException {
    ServerOptions.checkTimeout("--timeout", timeoutS);
    if (rows < 2) {
      throw new CliException("--rows must be at least 2, got " + rows);
    }
    long started = System.nanoTime();
    Path data = dataDir.resolve();
    LocalStack stack = dataDir.stack();

    header("Local stack (data dir " + data + ")");
    if (clean) {
      clean(stack, data);
    }
    StackState state = stack.up();

    header("Data set");
    Path parquet = FlightsDataset.ensure(data.resolve("cache"), out);
    long fileRows;
    try (RowReader reader = RowReader.open(parquet, FileFormat.PARQUET, Map.of())) {
      fileRows = reader.totalRows();
    }
    long total = Math.min(rows, fileRows);
    long live = Math.min(LIVE_ROWS, total / 2);
    long history = total - live;
    out.printf("%s: %,d flights; this run uses the first %,d (%,d before the view exists, %,d while it is live)%n",
        parquet.getFileName(), fileRows, total, history, live);

    header("Tenant " + tenant);
    String token = tenantToken(state);
    try (StreamfoldClient client = StreamfoldClient.connect("127.0.0.1:" + state.grpcPort(), token)) {
      header("Stream " + tenant + "/" + STREAM);
      CreateStreamResponse created = client.admin().createStream(CreateStreamRequest.newBuilder().setTenant(tenant)
          .setName(STREAM).addAllColumns(StreamCommand.parseColumns(COLUMNS)).build());
      out.println((created.getCreated() ? "Created" : "Exists:") + " stream " + tenant + "/" + STREAM + " ("
          + created.getStream().getTopic() + ") with columns " + String.join(" ", COLUMNS));

      header("Ledger: flights through the gRPC ingestion API");
      EventMapper mapper = new EventMapper("origin", "date");
      Ingested ingested = ingestHistory(client, parquet, mapper, fileRows, total, history);
      long expected = ingested.expected();
      boolean ingestLive = ingested.live();

      header("Transformation " + VIEW + " (Flink SQL)");
      out.println(SQL);
      createView(client);
      long waitStart = System.nanoTime();
      ViewStatus status = TransformCommand.awaitLive(client, tenant, VIEW, Duration.ofSeconds(timeoutS));
      out.println(TransformCommand.describe(status));
      out.printf("LIVE after %.1f s of waiting.%n", (System.nanoTime() - waitStart) / 1e9);

      String[] resp = {"127.0.0.1", Integer.toString(state.respPort())};
      try (RespViews views = RespViews.connect(resp[0], state.respPort(), "default", token)) {
        header("Live: " + (ingestLive ? String.format("%,d more flights while the view is LIVE", live)
            : "the view follows the ledger"));
        Map<String, String> before = views.row(VIEW, SHOWCASE_ORIGIN);
        if (ingestLive && live > 0) {
          out.println(VIEW + ":" + SHOWCASE_ORIGIN + " before: " + format(before));
          try (RowReader reader = RowReader.open(parquet, FileFormat.PARQUET, Map.of())) {
            reader.skip(history);
            Ingestion.run(client, tenant, STREAM, reader, mapper, live, "ingest " + STREAM + " (live)", out);
          }
        }
        status = TransformCommand.awaitApplied(client, tenant, VIEW, expected, Duration.ofSeconds(timeoutS));
        out.println(TransformCommand.describe(status));
        Map<String, String> after = views.row(VIEW, SHOWCASE_ORIGIN);
        out.println(VIEW + ":" + SHOWCASE_ORIGIN + (ingestLive && live > 0 ? " after:  " : ": ") + format(after));

        header("Check: every origin of the view against a plain group-by of the same " + String.format("%,d", expected)
            + " rows");
        GroupByOracle oracle = oracle(parquet, expected);
        List<String> mismatches = check(views, oracle);

        if (tiered) {
          tieredStorage(client, views, oracle);
        }

        header("Read the view yourself");
        printTop(views, oracle);
        printHowToRead(state.respPort(), token);
        out.printf("Done in %.0f s. The local stack keeps running (`./streamfold local status`);"
            + " stop it with `./streamfold local down`.%n", (System.nanoTime() - started) / 1e9);
        if (!mismatches.isEmpty()) {
          throw new CliException(mismatches.size() + " origins of " + VIEW + " differ from a plain group-by");
        }
      }
    }
    return 0;
  }

  /** What the history ingestion left: how many events the view must apply, and whether the live part is ingested. */
  private record Ingested(long expected, boolean live) {}

  /**
   * Ingest the flights before the view exists, unless the ledger holds them already (a second run) or holds
   * other data (then the check uses what it holds).
   */
  private Ingested ingestHistory(StreamfoldClient client, Path parquet, EventMapper mapper, long fileRows, long total,
      long history) throws IOException {
    StreamInfo info = IngestCommand.findStream(client, tenant, STREAM);
    long inLedger = info.getEventCount();
    boolean hasEvents = inLedger > 0 || !info.getLatestMessageId().isEmpty();
    long expected;
    boolean ingestLive;
    if (!hasEvents) {
      try (RowReader reader = RowReader.open(parquet, FileFormat.PARQUET, Map.of())) {
        Ingestion.run(client, tenant, STREAM, reader, mapper, history, "ingest " + STREAM, out);
      }
      expected = total;
      ingestLive = true;
    } else if (inLedger == history) {
      out.printf("The first %,d flights are already in the ledger (latest message ID %s); not ingesting them again.%n",
          inLedger, info.getLatestMessageId());
      expected = total;
      ingestLive = true;
    } else {
      expected = inLedger > 0 ? Math.min(inLedger, fileRows) : total;
      out.printf("The data is already in the ledger: stream %s/%s holds %,d events (latest message ID %s); not"
          + " ingesting again (`streamfold demo --clean` starts from an empty data dir).%n", tenant, STREAM,
          inLedger, info.getLatestMessageId());
      if (inLedger > 0 && inLedger != total) {
        out.printf("Note: that is not the %,d flights this run asks for; the check below uses the first %,d.%n",
            total, expected);
      }
      ingestLive = false;
    }
    return new Ingested(expected, ingestLive);
  }

  /**
   * Compare every row of the view with a plain group-by of the same rows, printing the count that match and the
   * first 20 mismatches.
   *
   * @return the mismatches, empty when the view is exact
   */
  private List<String> check(RespViews views, GroupByOracle oracle) {
    List<String> keys = views.keys(VIEW);
    List<String> mismatches = new ArrayList<>();
    int matching = 0;
    for (String origin : oracle.rows().keySet()) {
      String mismatch = oracle.mismatch(origin, views.row(VIEW, origin));
      if (mismatch == null) {
        matching++;
      } else {
        mismatches.add(mismatch);
      }
    }
    for (String key : keys) {
      if (!oracle.rows().containsKey(key)) {
        mismatches.add(oracle.mismatch(key, views.row(VIEW, key)));
      }
    }
    out.printf("%d/%d origins match a plain group-by (the view has %d rows over RESP).%n", matching,
        oracle.rows().size(), keys.size());
    mismatches.stream().limit(20).forEach(m -> out.println("  MISMATCH " + m));
    return mismatches;
  }

  /** Print the commands that read the view with any Redis client and with the CLI. */
  private void printHowToRead(int port, String token) {
    out.println();
    String cli = "redis-cli -p " + port + " --no-auth-warning -a " + token;
    out.println("The view is served over the Redis protocol; any Redis client reads it with tenant " + tenant
        + "'s token (AUTH):");
    out.println("  " + cli + " HGETALL " + VIEW + ":" + SHOWCASE_ORIGIN);
    out.println("  " + cli + " SCAN 0 MATCH " + VIEW + ":* COUNT 1000");
    out.println("  " + cli + " GET " + VIEW + ":" + SHOWCASE_ORIGIN + "      (the row as JSON)");
    out.println("  STREAMFOLD_TOKEN=" + token + " ./streamfold view get " + VIEW + " " + SHOWCASE_ORIGIN);
    out.println("  ./streamfold transform status " + VIEW + "      (without a token: the local stack's admin token)");
    out.println();
  }

  static final String VIEW_FROM_S3 = "delays_by_origin_from_s3";

  /**
   * Register the demo's tenant with the local stack's admin token and return a token of it: the first token
   * when the tenant is new, else a fresh one that replaces its earlier tokens (they are shown only once, so
   * the demo cannot print an old one). The rest of the demo runs with this tenant token, as a customer would.
   */
  private String tenantToken(StackState state) {
    String admin = dataDir.stack().adminToken();
    try (StreamfoldClient client = StreamfoldClient.connect("127.0.0.1:" + state.grpcPort(), admin)) {
      String token;
      try {
        dev.streamfold.api.v1.CreateTenantResponse created = client.tenants().createTenant(
            dev.streamfold.api.v1.CreateTenantRequest.newBuilder().setTenant(tenant).build());
        token = created.getToken();
        out.println("Created tenant " + tenant + " (Pulsar tenant " + tenant + " with namespaces ledger and system,"
            + " its key space in Redis) with token " + created.getTokenInfo().getId() + ".");
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
        dev.streamfold.api.v1.IssueTokenResponse issued = client.tenants().issueToken(
            dev.streamfold.api.v1.IssueTokenRequest.newBuilder().setTenant(tenant).setRevokeOthers(true).build());
        token = issued.getToken();
        out.println("Tenant " + tenant + " exists: issued token " + issued.getTokenInfo().getId() + " and revoked its"
            + " earlier tokens " + issued.getRevokedIdsList() + ".");
      }
      out.println("API token of tenant " + tenant + " (shown once; the server keeps only its SHA-256 hash):");
      out.println("  export STREAMFOLD_TOKEN=" + token);
      return token;
    }
  }

  /** Offload the stream, wait until the local copies are gone, and rebuild a view from S3-backed history. */
  private void tieredStorage(StreamfoldClient client, RespViews views, GroupByOracle oracle) throws InterruptedException {
    header("Tiered storage: offload the ledger to S3, then rebuild a view from it");
    dev.streamfold.api.v1.StreamRequest request = dev.streamfold.api.v1.StreamRequest.newBuilder()
        .setTenant(tenant).setStream(STREAM).build();
    client.admin().setOffloadPolicy(dev.streamfold.api.v1.SetOffloadPolicyRequest.newBuilder().setTenant(tenant)
        .setThresholdBytes(-1).setDeletionLagMs(3_000).build());
    out.println("Tenant " + tenant + ": manual offload, local copies deleted 3 s after an offload (demo setting).");
    out.println("Before:");
    LedgerCommand.print(client.admin().describeStorage(request));
    dev.streamfold.api.v1.OffloadStatus status = client.admin().offload(request);
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (!status.getState().equals("SUCCESS") && !status.getState().equals("ERROR") && System.nanoTime() < deadline) {
      Thread.sleep(500);
      status = client.admin().getOffloadStatus(request);
    }
    if (!status.getState().equals("SUCCESS")) {
      throw new CliException("offload of " + STREAM + " ended " + status.getState() + ": " + status.getError());
    }
    dev.streamfold.api.v1.StreamStorage storage = client.admin().describeStorage(request);
    while (System.nanoTime() < deadline && storage.getSegmentsList().subList(0, storage.getSegmentsCount() - 1)
        .stream().anyMatch(seg -> !seg.getLocalDeleted())) {
      Thread.sleep(1_000);
      storage = client.admin().describeStorage(request);
    }
    out.println("After the offload and the deletion of the local copies:");
    LedgerCommand.print(storage);
    if (storage.getSegmentsCount() < 2) {
      out.println("The stream is one open segment: nothing could be offloaded yet.");
      return;
    }
    try {
      client.transforms().create(CreateTransformRequest.newBuilder().setTenant(tenant).setName(VIEW_FROM_S3)
          .setSql(SQL).addKeyColumns("origin").build());
      out.println("Created transformation " + VIEW_FROM_S3 + ": the same SQL, backfilled from the earliest event,"
          + " now read from S3.");
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
      out.println("Exists: transformation " + VIEW_FROM_S3 + ".");
    }
    ViewStatus rebuilt = TransformCommand.awaitApplied(client, tenant, VIEW_FROM_S3,
        oracle.rows().values().stream().mapToLong(r -> r.flights).sum(), Duration.ofSeconds(timeoutS));
    out.println(TransformCommand.describe(rebuilt));
    int matching = 0;
    for (String origin : oracle.rows().keySet()) {
      if (oracle.mismatch(origin, views.row(VIEW_FROM_S3, origin)) == null) {
        matching++;
      }
    }
    out.printf("%d/%d origins of %s (rebuilt from S3) match the plain group-by.%n", matching, oracle.rows().size(),
        VIEW_FROM_S3);
    if (matching != oracle.rows().size()) {
      throw new CliException(VIEW_FROM_S3 + " differs from the plain group-by");
    }
  }

  private void createView(StreamfoldClient client) {
    try {
      Transform t = client.transforms().get(TransformCommand.request(tenant, VIEW));
      out.println("Exists: transformation " + tenant + "/" + VIEW + " v" + t.getVersion() + "; not creating it again.");
      return;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
    try {
      Transform t = client.transforms().create(CreateTransformRequest.newBuilder().setTenant(tenant).setName(VIEW)
          .setSql(SQL).addKeyColumns("origin").build());
      out.println("Created transformation " + tenant + "/" + VIEW + " v" + t.getVersion() + " (key "
          + String.join(",", t.getKeyColumnsList()) + "); its Flink job backfills from the earliest event.");
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
      out.println("Exists: transformation " + tenant + "/" + VIEW + "; not creating it again.");
    }
  }

  private static GroupByOracle oracle(Path parquet, long rows) throws IOException {
    GroupByOracle oracle = new GroupByOracle();
    try (RowReader reader = RowReader.open(parquet, FileFormat.PARQUET, Map.of())) {
      for (long i = 0; i < rows; i++) {
        ObjectNode row = reader.next();
        if (row == null) {
          break;
        }
        oracle.add(row);
      }
    }
    return oracle;
  }

  private void printTop(RespViews views, GroupByOracle oracle) {
    List<String> top = oracle.rows().entrySet().stream()
        .sorted(Comparator.comparingLong((Map.Entry<String, GroupByOracle.Row> e) -> e.getValue().flights).reversed())
        .limit(5).map(Map.Entry::getKey).toList();
    out.println("Busiest origins, as the view serves them:");
    out.printf("  %-8s %10s %12s %10s%n", "origin", "flights", "avg_delay", "delayed");
    for (String origin : top) {
      Map<String, String> row = views.row(VIEW, origin);
      out.printf("  %-8s %10s %12s %10s%n", origin, row.getOrDefault("flights", "-"),
          shortDouble(row.get("avg_delay")), row.getOrDefault("delayed", "-"));
    }
  }

  private static String shortDouble(String text) {
    if (text == null) {
      return "-";
    }
    try {
      return String.format("%.3f", Double.parseDouble(text));
    } catch (NumberFormatException e) {
      return text;
    }
  }

  private static String format(Map<String, String> row) {
    if (row.isEmpty()) {
      return "(no row yet)";
    }
    return "flights=" + row.get("flights") + " avg_delay=" + shortDouble(row.get("avg_delay")) + " delayed="
        + row.get("delayed");
  }

  private void clean(LocalStack stack, Path data) throws IOException {
    if (Files.isDirectory(data)) {
      boolean ours = Files.exists(data.resolve(StackState.FILE_NAME))
          || Files.isDirectory(data.resolve("pulsar"));
      try (var entries = Files.list(data)) {
        List<Path> children = entries.toList();
        if (!ours && !children.stream().allMatch(p -> p.getFileName().toString().equals("cache"))) {
          // never delete a directory that is not a stack's: --data-dir may be mistyped
          throw new CliException("--clean refuses to delete " + data + ": it does not look like a Streamfold data dir"
              + " (no stack.json)");
        }
        stack.down();
        out.println("Deleting " + data + " (except the downloaded data set in cache/ and the ports in "
            + StackState.FILE_NAME + ") ...");
        for (Path child : children) {
          String name = child.getFileName().toString();
          if (!name.equals("cache") && !name.equals(StackState.FILE_NAME)) {
            FlightsDataset.deleteTree(child);
          }
        }
      }
    }
  }

  private void header(String title) {
    step++;
    out.println();
    out.println("[" + step + "/" + (tiered ? STEPS + 1 : STEPS) + "] " + title);
  }
}
