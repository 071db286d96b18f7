package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.Column;
import dev.streamfold.cli.CliRunner.CliRun;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.deploy.process.FreePorts;
import io.grpc.Status;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

class StreamfoldCliTest {

  static <T> T parse(Class<T> type, String... args) {
    CommandLine cli = StreamfoldCli.commandLine();
    ParseResult result = cli.parseArgs(args);
    while (result.hasSubcommand()) {
      result = result.subcommand();
    }
    return type.cast(result.commandSpec().userObject());
  }

  /** Every command answers --help with its usage on stdout and exit code 0 (most gave a usage error, code 2). */
  @Test
  void everyCommandAnswersHelp() {
    List<List<String>> paths = new java.util.ArrayList<>();
    collect(StreamfoldCli.commandLine(), new java.util.ArrayList<>(), paths);
    assertThat(paths).hasSizeGreaterThan(30);
    for (List<String> path : paths) {
      List<String> args = new java.util.ArrayList<>(path);
      args.add("--help");
      CliRun r = new CliRunner().run(args.toArray(String[]::new));
      assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r.err()).isZero();
      assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: streamfold " + String.join(" ", path));
      assertThat(r.err()).as(String.join(" ", args)).isEmpty();
    }
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
    for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
      if (sub.getKey().equals("help")) {
        continue; // picocli's own help command takes a command name, not --help
      }
      List<String> next = new java.util.ArrayList<>(path);
      next.add(sub.getKey());
      into.add(next);
      collect(sub.getValue(), next, into);
    }
  }

  @Test
  void ingestOptions() {
    IngestCommand c = parse(IngestCommand.class, "ingest", "flights", "data/f.parquet", "--key", "origin",
        "--time", "date", "--format", "parquet", "--tenant", "acme", "--server", "10.0.0.1:9090");
    assertThat(c.stream).isEqualTo("flights");
    assertThat(c.file).isEqualTo(Path.of("data/f.parquet"));
    assertThat(c.format).isEqualTo(FileFormat.PARQUET);
    assertThat(c.keyField).isEqualTo("origin");
    assertThat(c.timeField).isEqualTo("date");
    assertThat(c.server.tenant).isEqualTo("acme");
    assertThat(c.server.grpcTarget()).isEqualTo("10.0.0.1:9090");
  }

  @Test
  void tenantDefaultsToDemoAndKeyIsRequired() {
    IngestCommand c = parse(IngestCommand.class, "ingest", "s", "f.csv", "--key", "k");
    assertThat(c.server.tenant).isEqualTo("demo");
    assertThat(c.timeField).isNull();
    assertThat(c.format).isNull();
    assertThatThrownBy(() -> parse(IngestCommand.class, "ingest", "s", "f.csv"))
        .isInstanceOf(CommandLine.MissingParameterException.class).hasMessageContaining("--key");
  }

  @Test
  void streamCreateColumnsRepeatOrSplit() {
    StreamCommand.Create c = parse(StreamCommand.Create.class, "stream", "create", "flights", "--column",
        "date:TIMESTAMP", "--column", "delay:int,origin:STRING");
    assertThat(c.name).isEqualTo("flights");
    assertThat(c.partitions).isZero();
    assertThat(parse(StreamCommand.Create.class, "stream", "create", "flights", "--partitions", "8").partitions)
        .isEqualTo(8);
    assertThat(StreamCommand.parseColumns(c.columns)).extracting(Column::getName, Column::getType)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("date", "TIMESTAMP"),
            org.assertj.core.groups.Tuple.tuple("delay", "INT"), org.assertj.core.groups.Tuple.tuple("origin", "STRING"));
    assertThatThrownBy(() -> StreamCommand.parseColumns(List.of("delay")))
        .isInstanceOf(CliException.class).hasMessageContaining("NAME:TYPE");
    StreamCommand.SchemaUpdate u = parse(StreamCommand.SchemaUpdate.class, "stream", "schema", "update", "flights",
        "--column", "delay:INT NOT NULL", "--column", "carrier:STRING DEFAULT \"AA\"");
    assertThat(u.name).isEqualTo("flights");
    assertThat(StreamCommand.parseColumns(u.columns)).extracting(Column::getName, Column::getRequired, Column::getDefaultJson)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("delay", true, ""),
            org.assertj.core.groups.Tuple.tuple("carrier", false, "\"AA\""));
  }

  @Test
  void transformCommands() {
    TransformCommand.Create c = parse(TransformCommand.Create.class, "transform", "create", "v", "--sql",
        "SELECT a, b, COUNT(*) AS n FROM s GROUP BY a, b", "--key", "a,b", "--wait");
    assertThat(c.name).isEqualTo("v");
    assertThat(c.keyColumns).containsExactly("a", "b");
    assertThat(c.await).isTrue();
    assertThat(parse(TransformCommand.Status.class, "transform", "status", "v").name).isEqualTo("v");
    assertThat(parse(TransformCommand.Delete.class, "transform", "delete", "v", "--tenant", "t").server.tenant)
        .isEqualTo("t");
    assertThat(parse(TransformCommand.ListTransforms.class, "transform", "list")).isNotNull();
    TransformCommand.Create none = parse(TransformCommand.Create.class, "transform", "create", "v");
    assertThatThrownBy(() -> none.fold.given(none.sql)).isInstanceOf(CliException.class)
        .hasMessageContaining("--sql SQL, or --jar FILE --class CLASS --stream STREAM");
    assertThat(c.fold.given(c.sql)).isFalse();

    TransformCommand.Create java = parse(TransformCommand.Create.class, "transform", "create", "v", "--jar",
        "folds.jar", "--class", "com.acme.Fold", "--stream", "flights");
    assertThat(java.fold.given(java.sql)).isTrue();
    assertThatThrownBy(() -> java.fold.request()).isInstanceOf(CliException.class)
        .hasMessage("--jar folds.jar: no such file");
    TransformCommand.Create half = parse(TransformCommand.Create.class, "transform", "create", "v", "--jar", "f.jar");
    assertThatThrownBy(() -> half.fold.given(half.sql)).hasMessageContaining("missing: --class --stream");
    TransformCommand.Create both = parse(TransformCommand.Create.class, "transform", "create", "v", "--jar", "f.jar",
        "--sql", "SELECT 1");
    assertThatThrownBy(() -> both.fold.given(both.sql)).hasMessageContaining("not both");
  }

  @Test
  void viewGetAndDemoAndLocal() {
    ViewCommand.Get get = parse(ViewCommand.Get.class, "view", "get", "delays_by_origin", "ATL", "--resp",
        "127.0.0.1:7777");
    assertThat(get.view).isEqualTo("delays_by_origin");
    assertThat(get.key).isEqualTo("ATL");
    assertThat(get.server.respAddress(get.resp)).containsExactly("127.0.0.1", "7777");

    DemoCommand demo = parse(DemoCommand.class, "demo", "--rows", "200000", "--clean", "--data-dir", "/tmp/sf");
    assertThat(demo.rows).isEqualTo(200_000);
    assertThat(demo.clean).isTrue();
    assertThat(demo.dataDir.resolve()).isEqualTo(Path.of("/tmp/sf"));
    assertThat(parse(DemoCommand.class, "demo").rows).isEqualTo(3_000_000);

    LocalCommand.Up up = parse(LocalCommand.Up.class, "local", "up", "--grpc-port", "5000", "--resp-port", "5001",
        "--data-dir", "/tmp/sf2");
    assertThat(up.options().grpcPort()).isEqualTo(5000);
    assertThat(up.options().respPort()).isEqualTo(5001);
    assertThat(up.options().redisPort()).isZero();
    assertThat(up.options().dataDir()).isEqualTo(Path.of("/tmp/sf2"));
    assertThat(parse(LocalCommand.Down.class, "local", "down")).isNotNull();
    assertThat(parse(LocalCommand.Status.class, "local", "status")).isNotNull();
  }

  @Test
  void replayTakesExactlyOneStopAndBuildsItsRequest() {
    ReplayCommand to = parse(ReplayCommand.class, "replay", "delays", "--to", "12:5:-1:4");
    assertThat(to.request().getTo()).isEqualTo("12:5:-1:4");
    assertThat(to.request().getBefore()).isFalse();
    assertThat(to.request().getAs()).isEmpty();
    assertThat(to.request().getFrom()).isEmpty();
    assertThat(to.request().getDetach()).isFalse();
    assertThat(to.request().getTenant()).isEqualTo("demo");

    ReplayCommand before = parse(ReplayCommand.class, "replay", "delays", "--before", "2015-01-02T00:00:00Z",
        "--from", "12:0:-1:-1", "--as", "window", "--no-wait", "--tenant", "acme");
    assertThat(before.request().getTo()).isEqualTo("2015-01-02T00:00:00Z");
    assertThat(before.request().getBefore()).isTrue();
    assertThat(before.request().getFrom()).isEqualTo("12:0:-1:-1");
    assertThat(before.request().getAs()).isEqualTo("window");
    assertThat(before.request().getDetach()).isTrue();
    assertThat(before.request().getTenant()).isEqualTo("acme");

    assertThatThrownBy(() -> parse(ReplayCommand.class, "replay", "delays"))
        .isInstanceOf(CommandLine.MissingParameterException.class).hasMessageContaining("--to").hasMessageContaining("--before");
    assertThatThrownBy(() -> parse(ReplayCommand.class, "replay", "delays", "--to", "latest", "--before", "1:2:-1:-1"))
        .isInstanceOf(CommandLine.MutuallyExclusiveArgsException.class);
  }

  @Test
  void rollbackReusesThePositionFormStateOfAMessageId() {
    RollbackCommand to = parse(RollbackCommand.class, "rollback", "delays", "--to", "12:5:-1:4");
    assertThat(to.reusableState()).contains("delays@12:5:-1:4");
    assertThat(parse(RollbackCommand.class, "rollback", "delays", "--to", "12:5:-1:4", "--as", "x").reusableState()).isEmpty();
    assertThat(parse(RollbackCommand.class, "rollback", "delays", "--to", "latest").reusableState()).isEmpty();
    assertThatThrownBy(() -> parse(RollbackCommand.class, "rollback", "delays", "--to", "2015-01-02").reusableState())
        .isInstanceOf(CliException.class).hasMessageContaining("name the virtual state for this position").hasMessageContaining("with --as NAME");
    RollbackCommand state = parse(RollbackCommand.class, "rollback", "delays", "--state", "yesterday");
    assertThat(state.target.state).isEqualTo("yesterday");
    assertThat(state.reusableState()).isEmpty();
    assertThatThrownBy(() -> parse(RollbackCommand.class, "rollback", "delays", "--state", "s", "--as", "x").reusableState())
        .isInstanceOf(CliException.class).hasMessageContaining("--as");
    assertThatThrownBy(() -> parse(RollbackCommand.class, "rollback", "delays"))
        .isInstanceOf(CommandLine.MissingParameterException.class);
    assertThat(parse(RollbackCommand.Resume.class, "resume", "delays").view).isEqualTo("delays");
  }

  @Test
  void viewListDropAndTransformUpdate() {
    assertThat(parse(ViewCommand.ListViews.class, "view", "list", "--tenant", "acme").server.tenant).isEqualTo("acme");
    assertThat(parse(ViewCommand.Drop.class, "view", "drop", "delays@12:5:-1:4").name).isEqualTo("delays@12:5:-1:4");
    TransformCommand.Update u = parse(TransformCommand.Update.class, "transform", "update", "delays", "--sql",
        "SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin", "--key", "origin", "--no-wait");
    assertThat(u.name).isEqualTo("delays");
    assertThat(u.keyColumns).containsExactly("origin");
    assertThat(u.noWait).isTrue();
    TransformCommand.Update none = parse(TransformCommand.Update.class, "transform", "update", "delays");
    assertThatThrownBy(() -> none.fold.given(none.sql)).hasMessageContaining("--sql SQL, or --jar FILE");
  }

  @Test
  void statusShowsBothVersionsWhileAnUpdateRuns() {
    var s = dev.streamfold.api.v1.ViewStatus.newBuilder().setTenant("demo").setView("delays").setPhase("LIVE")
        .setEventsApplied(100).setBackfillTargetEvents(100).setRows(3).setVersion(1).setServedVersion(1)
        .setJobState("RUNNING").setRolledBackTo("delays@1:2:-1:-1")
        .setUpdate(dev.streamfold.api.v1.ViewUpdate.newBuilder().setVersion(2).setPhase("BACKFILLING")
            .setEventsApplied(25).setBackfillTargetEvents(100).setJobState("RUNNING")).build();
    String text = TransformCommand.describe(s);
    assertThat(text).startsWith("View demo/delays: LIVE, serves version 1, 100 events applied (backfill target 100), 3 rows")
        .contains("version 1 (served), job RUNNING")
        .contains("update to version 2: BACKFILLING, 25 events applied (backfill target 100, 25%)")
        .contains("ROLLED BACK to virtual state delays@1:2:-1:-1");
    var line = ViewCommand.ListViews.line(dev.streamfold.api.v1.VirtualState.newBuilder().setName("delays@1:2:-1:-1")
        .setSourceView("delays").setTransformVersion(1).setStop("to 1:2:-1:-1").setFullHistory(true).setPhase("COMPLETE")
        .addPosition("1:2:-1:-1").setEventsApplied(3).setTargetEvents(3).setRows(2).build());
    assertThat(line).containsExactly("delays@1:2:-1:-1", "virtual", "COMPLETE", "1:2:-1:-1", "3", "2",
        "of delays v1, earliest .. to 1:2:-1:-1");
  }

  @Test
  void statusShowsAStalledBackfillAndWhy() {
    String why = "no event applied for 64 s, with 2,000 of 2,000 backfill events still to apply; the next events are in"
        + " segment 12, offloaded to S3 bucket b and deleted locally: is the S3 endpoint reachable?";
    var s = dev.streamfold.api.v1.ViewStatus.newBuilder().setTenant("demo").setView("delays").setPhase("BACKFILLING")
        .setBackfillTargetEvents(2_000).setVersion(1).setJobState("RUNNING").setStalled(why)
        .setUpdate(dev.streamfold.api.v1.ViewUpdate.newBuilder().setVersion(2).setPhase("BACKFILLING")
            .setStalled("no event applied for 70 s")).build();
    assertThat(TransformCommand.describe(s)).contains("\n  STALLED: " + why)
        .contains("\n    STALLED: no event applied for 70 s (the served version is untouched)");
    assertThat(TransformCommand.describe(s.toBuilder().clearStalled().clearUpdate().build())).doesNotContain("STALLED");
    String printed = CliRunner.capture(() -> {
      // printed once when the stall begins, again only after progress
      boolean warned = TransformCommand.warnOnStall("backfill of delays", false, why);
      warned = TransformCommand.warnOnStall("backfill of delays", warned, why.replace("64 s", "65 s"));
      warned = TransformCommand.warnOnStall("backfill of delays", warned, "");
      assertThat(warned).isFalse();
      TransformCommand.warnOnStall("backfill of delays", warned, why);
      return 0;
    }).err();
    assertThat(printed.lines().filter(l -> !l.isEmpty()))
        .containsExactly("backfill of delays STALLED: " + why + " (still waiting)",
            "backfill of delays STALLED: " + why + " (still waiting)");
  }

  @Test
  void unavailableBlamesTheServerOnlyWhenItDidNotNameAStoreBehindIt() {
    assertThat(ErrorHandler.describe(io.grpc.Status.UNAVAILABLE.withDescription("io exception")))
        .endsWith("(is the Streamfold server running? `streamfold local status`)");
    assertThat(ErrorHandler.describe(io.grpc.Status.UNAVAILABLE.withDescription(
        "the view store (Redis) did not answer: Command timed out after 10 second(s)")))
        .isEqualTo("UNAVAILABLE: the view store (Redis) did not answer: Command timed out after 10 second(s)");
  }

  @Test
  void aCommandsOptionBeforeItsNameSaysWhereItGoes() {
    // picocli answered "Unknown options" and the whole usage
    CliRun misplaced = new CliRunner().run("--token=sf_x", "transform", "status", "delays");
    assertThat(misplaced.exitCode()).isEqualTo(2);
    assertThat(misplaced.err().trim()).isEqualTo("error: --token goes after the command's name, e.g. `streamfold"
        + " transform status NAME --token ...`: each command takes its own options");
    CliRun other = new CliRunner().run("--nope", "transform", "status", "delays");
    assertThat(other.exitCode()).isEqualTo(2);
    assertThat(other.err()).contains("Unknown option").contains("Usage:");
  }

  @Test
  void anEmptyTokenIsRefusedNotReplacedByTheAdminToken() {
    // an unset variable in a script (--token "$TOK") ran with the local admin token
    ServerOptions options = new ServerOptions();
    options.token = "";
    assertThatThrownBy(() -> options.token(null)).isInstanceOf(CliException.class).hasMessageStartingWith("--token is empty");
    options.token = null;
    assertThatThrownBy(() -> options.token(" ")).isInstanceOf(CliException.class)
        .hasMessageStartingWith("STREAMFOLD_TOKEN is set but empty");
    assertThat(options.token("sf_abc ")).isEqualTo("sf_abc");
    options.token = "sf_given";
    assertThat(options.token("sf_env")).isEqualTo("sf_given");
  }

  @Test
  void badAddressIsAUserError() {
    IngestCommand c = parse(IngestCommand.class, "ingest", "s", "f.csv", "--key", "k", "--server", "nohost");
    assertThatThrownBy(c.server::grpcTarget).isInstanceOf(CliException.class).hasMessageContaining("HOST:PORT");
  }

  @Test
  void grpcErrorsPrintOneLineWithTheStatusCodeAndExitNonZero() {
    int closedPort = FreePorts.pick();
    CliRun r = new CliRunner().run("stream", "list", "--server", "127.0.0.1:" + closedPort);
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: UNAVAILABLE: ").doesNotContain("\tat ");
    assertThat(r.err().lines().count()).isEqualTo(1);
    assertThat(ErrorHandler.describe(Status.NOT_FOUND.withDescription("stream 'x' does not exist").asRuntimeException()))
        .isEqualTo("NOT_FOUND: stream 'x' does not exist");
    // a refused AUTH is not an unreachable server (a tenant token without --tenant asked "is the stack running?")
    RespException.NotConnected refused = new RespException.NotConnected("127.0.0.1", 6380,
        new RespException.ErrorReply("WRONGPASS invalid username-password pair or user is disabled."));
    assertThat(ErrorHandler.describe(refused)).startsWith("the query-service refused the token: WRONGPASS")
        .contains("--tenant").doesNotContain("is the local stack running");
    assertThat(ErrorHandler.describe(new RespException.NotConnected("127.0.0.1", 6380,
        new ConnectException("Connection refused")))).contains("is the local stack running");
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertThat(new CliRunner().run("ingest", "s").exitCode()).isEqualTo(2);
    assertThat(new CliRunner().run("no-such-command").exitCode()).isEqualTo(2);
  }

  @Test
  void oracleComparesEveryAggregate() {
    GroupByOracle oracle = new GroupByOracle();
    var json = dev.streamfold.cli.ingest.Json.MAPPER;
    oracle.add((com.fasterxml.jackson.databind.node.ObjectNode) json.createObjectNode().put("origin", "ATL").put("delay", 20));
    oracle.add((com.fasterxml.jackson.databind.node.ObjectNode) json.createObjectNode().put("origin", "ATL").put("delay", 1));
    assertThat(oracle.mismatch("ATL", Map.of("flights", "2", "avg_delay", "10.5", "delayed", "1"))).isNull();
    assertThat(oracle.mismatch("ATL", Map.of("flights", "2", "avg_delay", "10.6", "delayed", "1")))
        .contains("avg_delay 10.6 != 10.5");
    assertThat(oracle.mismatch("ATL", Map.of())).contains("missing from the view");
    assertThat(oracle.mismatch("SFO", Map.of("flights", "1"))).contains("not in the data");
  }

  /** picocli quoted the unmatched arguments, a --token's value among them, on stderr. */
  @Test
  void aUsageErrorNeverShowsTheToken() {
    CliRun r = new CliRunner().run("stream", "nope", "--token", "sf_secret123", "--token=sf_other456");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).startsWith("Unmatched arguments from index 1: 'nope', '--token', '" + StreamfoldCli.REDACTED
        + "', '--token=" + StreamfoldCli.REDACTED + "'").doesNotContain("sf_secret123").doesNotContain("sf_other456");
  }

  @Test
  void aTokenThatIsNotPrintableAsciiIsRefusedWithoutShowingIt() {
    ServerOptions options = new ServerOptions();
    options.token = "sf_a\nb";
    assertThatThrownBy(() -> options.token(null)).isInstanceOf(CliException.class)
        .hasMessage("--token holds U+000A at character 5: an API token is one word of printable ASCII (as `tenant"
            + " create` printed it)");
    options.token = null;
    assertThatThrownBy(() -> options.token("t\u00f6ken")).hasMessageStartingWith("STREAMFOLD_TOKEN holds U+00F6 at character 2");
  }

  @Test
  void anErrorStaysOneLine() {
    assertThat(ErrorHandler.oneLine("no such file: /tmp/a\nb\r\0.csv\t")).isEqualTo(
        "no such file: /tmp/a\\u000Ab\\u000D\\u0000.csv\\u0009");
  }
}
