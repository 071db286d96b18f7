package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.GetTrainingSetRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetHeader;
import dev.streamfold.api.v1.TrainingSetPlan;
import dev.streamfold.api.v1.TrainingSetPlanFeature;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetRows;
import dev.streamfold.api.v1.TrainingSetValue;
import dev.streamfold.cli.CliRunner.CliRun;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code streamfold training-set} against a scripted gRPC server: feature splitting, the request, the output. */
class TrainingSetCommandTest {
  private static final TrainingSetProgress RUNNING = TrainingSetProgress.newBuilder().setName("delayed")
      .setPhase("RUNNING").setEventsRead(50).setTargetEvents(100).setRows(20).setOutput("/d/delayed.parquet")
      .setManifest("/d/delayed.parquet.manifest.json").setStopMessageId("7:99:-1:-1").build();

  private static final TrainingSetPlan PLAN = TrainingSetPlan.newBuilder().setName("delayed").setLabelStream("flights").setCutRule("as-served")
      .setStop("to latest").setReadThrough("7:99:-1:-1").setTargetEvents(100).setTargetEventsExact(true)
      .setWhere("distance > 100").setOutput("/d/delayed.parquet").setManifest("/d/delayed.parquet.manifest.json")
      .setFormat("parquet").setHeader(TrainingSetHeader.newBuilder().addColumns("message_id").addColumns("event_time")
          .addColumns("entity").addColumns("label").addColumns("recent").addColumns("state").addTypes("STRING")
          .addTypes("TIMESTAMP").addTypes("STRING").addTypes("BOOLEAN").addTypes("DOUBLE").addTypes("STRING"))
      .addFeatures(TrainingSetPlanFeature.newBuilder().setName("recent").setView("delays_by_origin").setViewVersion(2)
          .setLogic("sql").addStreams("flights").setColumn("avg_delay").setType("DOUBLE").setJoin("origin")
          .setTtlMs(7_200_000).setCut("event"))
      .addFeatures(TrainingSetPlanFeature.newBuilder().setName("state").setView("airport_state").setViewVersion(1)
          .setLogic("sql").addStreams("airports").setColumn("state").setType("STRING").setJoin("origin")
          .setTtlMs(-1).setCut("tick"))
      .setTick(42)
      .build();

  private final List<Object> received = new CopyOnWriteArrayList<>();
  private Server server;
  private String target;
  private CliRunner cli;

  private final class Replays extends ReplayServiceGrpc.ReplayServiceImplBase {
    @Override
    public void exportTrainingSet(ExportTrainingSetRequest request, StreamObserver<ExportTrainingSetResponse> response) {
      received.add(request);
      if (request.getFeaturesList().contains("nope.x")) {
        response.onError(Status.NOT_FOUND.withDescription("transformation 'nope' does not exist in tenant 'demo'")
            .asRuntimeException());
        return;
      }
      if (request.getDryRun()) {
        response.onNext(ExportTrainingSetResponse.newBuilder().setPlan(PLAN).build());
        response.onCompleted();
        return;
      }
      if (request.getFeaturesList().contains("v.broken")) {
        response.onNext(ExportTrainingSetResponse.newBuilder().setProgress(RUNNING).build());
        response.onError(Status.ABORTED.withDescription("training set 'delayed' FAILED: boom").asRuntimeException());
        return;
      }
      response.onNext(ExportTrainingSetResponse.newBuilder().setProgress(RUNNING).build());
      if (request.getDetach()) {
        response.onCompleted();
        return;
      }
      response.onNext(ExportTrainingSetResponse.newBuilder().setProgress(RUNNING.toBuilder().setPhase("COMPLETE")
          .setEventsRead(100).setRows(40)).build());
      if (request.getStreamRows()) {
        response.onNext(ExportTrainingSetResponse.newBuilder().setHeader(TrainingSetHeader.newBuilder()
            .addColumns("message_id").addColumns("event_time").addColumns("entity").addColumns("label")
            .addColumns("delays_by_origin__avg_delay").addTypes("STRING").addTypes("TIMESTAMP").addTypes("STRING")
            .addTypes("BOOLEAN").addTypes("DOUBLE")).build());
        response.onNext(ExportTrainingSetResponse.newBuilder().setRows(TrainingSetRows.newBuilder()
            .addRows(row("7:0:-1:-1", 1_420_070_400_000L, "ATL", true, null))
            .addRows(row("7:1:-1:-1", 1_420_070_460_000L, "LAS", false, 12.3456789))).build());
      }
      response.onNext(ExportTrainingSetResponse.newBuilder().setDone(TrainingSetDone.newBuilder().setName("delayed")
          .setRows(40).setEventsRead(100).setSeconds(2.0).setRowsPerSecond(20).setOutput("/d/delayed.parquet")
          .setManifest("/d/delayed.parquet.manifest.json").setStopMessageId("7:99:-1:-1").setRowsStreamed(2)).build());
      response.onCompleted();
    }

    @Override
    public void getTrainingSet(GetTrainingSetRequest request, StreamObserver<TrainingSetProgress> response) {
      received.add(request);
      response.onNext(RUNNING.toBuilder().setElapsedMs(1_500).build());
      response.onCompleted();
    }
  }

  private static TrainingSetRow row(String id, long time, String entity, boolean label, Double avg) {
    return TrainingSetRow.newBuilder()
        .addValues(TrainingSetValue.newBuilder().setStringValue(id))
        .addValues(TrainingSetValue.newBuilder().setInt64Value(time))
        .addValues(TrainingSetValue.newBuilder().setStringValue(entity))
        .addValues(TrainingSetValue.newBuilder().setBoolValue(label))
        .addValues(avg == null ? TrainingSetValue.newBuilder().setIsNull(true) : TrainingSetValue.newBuilder().setDoubleValue(avg))
        .build();
  }

  @BeforeEach
  void start() throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new Replays()).build().start();
    target = "127.0.0.1:" + server.getPort();
    cli = new CliRunner("--server", target);
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @Test
  void featuresSplitAtTopLevelCommasOnly() {
    assertThat(TrainingSetCommand.splitTopLevel("a.x, b.y ,c.z")).containsExactly("a.x", "b.y", "c.z");
    assertThat(TrainingSetCommand.splitTopLevel("a.x,r=b.y@CONCAT(origin, '>', destination)/2h,c.z"))
        .containsExactly("a.x", "r=b.y@CONCAT(origin, '>', destination)/2h", "c.z");
    assertThat(TrainingSetCommand.splitTopLevel("a.x@'a,b',b.y@\"c,d\",c.z@`e,f`"))
        .containsExactly("a.x@'a,b'", "b.y@\"c,d\"", "c.z@`e,f`");
    assertThat(TrainingSetCommand.splitTopLevel("a.x@COALESCE(f(a, b), 'it''s, ok'),b.y"))
        .containsExactly("a.x@COALESCE(f(a, b), 'it''s, ok')", "b.y");
    assertThat(TrainingSetCommand.splitTopLevel("a.x,,b.y,")).containsExactly("a.x", "b.y");
    assertThat(TrainingSetCommand.splitTopLevel("a.x@origin || '>' || destination"))
        .containsExactly("a.x@origin || '>' || destination");
    assertThatThrownBy(() -> TrainingSetCommand.splitTopLevel("a.x@f(a, b")).isInstanceOf(CliException.class)
        .hasMessage("--features: unclosed '(' in 'a.x@f(a, b'");
    assertThatThrownBy(() -> TrainingSetCommand.splitTopLevel("a.x@'a,b")).hasMessage("--features: unclosed ' in 'a.x@'a,b'");
    assertThatThrownBy(() -> TrainingSetCommand.splitTopLevel("a.x),b")).hasMessageStartingWith("--features: unbalanced ')'");
  }

  @Test
  void commandLinesAreQuotedForTheShell() {
    assertThat(TrainingSetCommand.commandLine(List.of("training-set", "create", "d", "--label", "delay >= 15",
        "--features", "a.x,r=b.y@origin || '>' || destination", "--to", "1:2:-1:3")))
        .isEqualTo("streamfold training-set create d --label 'delay >= 15' --features"
            + " 'a.x,r=b.y@origin || '\\''>'\\'' || destination' --to 1:2:-1:3");
  }

  @Test
  void createSendsTheRequestShowsTheFirstRowsAndEndsWithOneLine() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--where", "distance > 100",
        "--features", "delays_by_origin.avg_delay,route=delays_by_route.avg_delay@CONCAT(origin, '>', destination)",
        "--feature", "x=delays_by_origin.flights/2h", "--out", "sets/delayed.parquet", "--head", "2");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(received).singleElement().isInstanceOfSatisfying(ExportTrainingSetRequest.class, q -> {
      assertThat(q.getTenant()).isEqualTo("demo");
      assertThat(q.getName()).isEqualTo("delayed");
      assertThat(q.getLabelStream()).isEqualTo("flights");
      assertThat(q.getEntity()).isEqualTo("origin");
      assertThat(q.getLabel()).isEqualTo("delay >= 15");
      assertThat(q.getWhere()).isEqualTo("distance > 100");
      assertThat(q.getFeaturesList()).containsExactly("delays_by_origin.avg_delay",
          "route=delays_by_route.avg_delay@CONCAT(origin, '>', destination)", "x=delays_by_origin.flights/2h");
      assertThat(q.getTo()).isEmpty();
      assertThat(q.getOut()).isEqualTo(Path.of("sets/delayed.parquet").toAbsolutePath().normalize().toString());
      assertThat(q.getStreamRows()).isTrue();
      assertThat(q.getMaxRows()).isEqualTo(2);
      assertThat(q.getDetach()).isFalse();
      assertThat(q.getCommand()).startsWith("streamfold training-set create delayed --label-stream flights --entity origin"
          + " --label 'delay >= 15' --where 'distance > 100' --features").contains("--head 2 --server " + target);
    });
    assertThat(r.out()).isEqualTo("""
        message_id  event_time            entity  label  delays_by_origin__avg_delay
        7:0:-1:-1   2015-01-01T00:00:00Z  ATL     true   null
        7:1:-1:-1   2015-01-01T00:01:00Z  LAS     false  12.3457
        Training set delayed: 40 rows from 100 events in 2.0 s (20 rows/s), up to message ID 7:99:-1:-1 → \
        /d/delayed.parquet (manifest /d/delayed.parquet.manifest.json)
        """);
  }

  @Test
  void labelsFromAFileAreSentAsAnAbsolutePathWithTheTimeColumn() {
    CliRun r = cli.run("training-set", "create", "delayed", "--labels-file", "labels.csv", "--time", "ts", "--entity",
        "origin", "--feature", "a.x", "--head", "0", "--known-at");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(received).singleElement().isInstanceOfSatisfying(ExportTrainingSetRequest.class, q -> {
      assertThat(q.getLabelsFile()).isEqualTo(Path.of("labels.csv").toAbsolutePath().normalize().toString());
      assertThat(q.getTimeColumn()).isEqualTo("ts");
      assertThat(q.getKnownAt()).isTrue();
      assertThat(q.getLabelStream()).isEmpty();
      assertThat(q.getLabel()).isEmpty();
    });
    String[][] refused = {
        {"--labels-file", "l.csv", "--entity", "o", "--feature", "a.x"},
        {"--labels-file", "l.csv", "--time", "ts", "--label", "x", "--entity", "o", "--feature", "a.x"},
        {"--label-stream", "flights", "--entity", "o", "--feature", "a.x"},
        {"--label-stream", "flights", "--label", "x", "--time", "ts", "--entity", "o", "--feature", "a.x"},
        {"--labels-file", "l.csv", "--time", "ts", "--cut", "as-served", "--entity", "o", "--feature", "a.x"},
        {"--label-stream", "flights", "--label", "x", "--cut", "by-time", "--entity", "o", "--feature", "a.x"},
        {"--label-stream", "flights", "--label", "x", "--cut", "as-served", "--known-at", "--entity", "o", "--feature",
            "a.x"}};
    String[] messages = {"error: --labels-file needs --time COLUMN: the column holding each row's time",
        "error: --label: with --labels-file the labels are the file's own columns, kept as they are; leave it out",
        "error: --label-stream needs --label EXPR, e.g. --label \"delay >= 15\"",
        "error: --time goes with --labels-file; the time of a label event is its event time",
        "error: --cut as-served: a labels file's rows are cut by event time (--cut event-time, the default with"
            + " --labels-file)",
        "error: --cut by-time: give as-served or event-time",
        "error: --known-at cuts by event time: give it with --cut event-time, not as-served"};
    for (int i = 0; i < refused.length; i++) {
      List<String> args = new java.util.ArrayList<>(List.of("training-set", "create", "delayed"));
      args.addAll(List.of(refused[i]));
      r = cli.run(args.toArray(String[]::new));
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.errors()).isEqualTo(messages[i]);
    }
    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--labels-file", "l.csv",
        "--entity", "o", "--feature", "a.x");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: give --label-stream or --labels-file, not both");
    assertThat(received).hasSize(1);
  }

  @Test
  void aPlanAskedForAsJsonGivesItsErrorAsJsonToo() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--feature", "a.x", "--dry-run", "--json");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).isEqualTo("{\"error\":{\"code\":\"INVALID_ARGUMENT\",\"message\":\"--label-stream needs --label"
        + " EXPR, e.g. --label \\\"delay >= 15\\\"\"}}\n");
    assertThat(r.errors()).isEqualTo("error: --label-stream needs --label EXPR, e.g. --label \"delay >= 15\"");
    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--feature", "a.x", "--dry-run");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void theCutRuleIsPassedOnAndKnownAtWithALabelStream() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--head", "0", "--cut", "event-time", "--known-at");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--head", "0");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(received).hasSize(2);
    ExportTrainingSetRequest byEventTime = (ExportTrainingSetRequest) received.get(0);
    assertThat(byEventTime.getCut()).isEqualTo("event-time");
    assertThat(byEventTime.getKnownAt()).isTrue();
    ExportTrainingSetRequest asServed = (ExportTrainingSetRequest) received.get(1);
    assertThat(asServed.getCut()).isEmpty();
    assertThat(asServed.getKnownAt()).isFalse();
  }

  @Test
  void headZeroStreamsNoRowsAndToIsPassedOn() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--head", "0", "--to", "7:50:-1:-1");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(r.out()).startsWith("Training set delayed: 40 rows");
    assertThat(received).singleElement().isInstanceOfSatisfying(ExportTrainingSetRequest.class, q -> {
      assertThat(q.getStreamRows()).isFalse();
      assertThat(q.getTo()).isEqualTo("7:50:-1:-1");
      assertThat(q.getOut()).isEmpty();
    });
  }

  @Test
  void beforeIsPassedOnAsAnExclusiveStopAndNotTogetherWithTo() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--head", "0", "--before", "tick:14");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(received).singleElement().isInstanceOfSatisfying(ExportTrainingSetRequest.class, q -> {
      assertThat(q.getTo()).isEqualTo("tick:14");
      assertThat(q.getBefore()).isTrue();
    });
    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--to", "latest", "--before", "tick:14");
    assertThat(r.exitCode()).isNotEqualTo(0);
    assertThat(r.errors()).isEqualTo("error: give --to or --before, not both");
    assertThat(received).hasSize(1);
  }

  @Test
  void dryRunPrintsThePlanAsTextOrJsonAndBuildsNothing() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "recent=delays_by_origin.avg_delay/2h", "--dry-run");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat((ExportTrainingSetRequest) received.get(0)).satisfies(q -> {
      assertThat(q.getDryRun()).isTrue();
      assertThat(q.getStreamRows()).isFalse();
    });
    assertThat(r.out()).isEqualTo("""
        Training set delayed (dry run: nothing built)
          labels    stream flights, events where distance > 100
          stop      to latest, reads through 7:99:-1:-1; other streams through tick 42 of the tenant clock
          events    100 of the label stream
          features
            recent DOUBLE = delays_by_origin.avg_delay (view version 2, SQL over flights) at key origin, ttl 2h
            state STRING = airport_state.state (view version 1, SQL over airports) at key origin, as at the last tick before the label event
          columns   message_id STRING, event_time TIMESTAMP, entity STRING, label BOOLEAN, recent DOUBLE, state STRING
          output    /d/delayed.parquet (parquet), manifest /d/delayed.parquet.manifest.json
        """);

    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "recent=delays_by_origin.avg_delay/2h", "--dry-run", "--json");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(r.out()).isEqualTo("{\"name\":\"delayed\",\"label_stream\":\"flights\",\"cut_rule\":\"as-served\",\"partitions\":0,"
        + "\"where\":\"distance > 100\",\"stop\":\"to latest\",\"read_through\":\"7:99:-1:-1\",\"target_events\":100,"
        + "\"target_events_exact\":true,\"tick\":42,\"output\":\"/d/delayed.parquet\",\"format\":\"parquet\","
        + "\"manifest\":\"/d/delayed.parquet.manifest.json\",\"columns\":[{\"name\":\"message_id\",\"type\":\"STRING\"},"
        + "{\"name\":\"event_time\",\"type\":\"TIMESTAMP\"},{\"name\":\"entity\",\"type\":\"STRING\"},"
        + "{\"name\":\"label\",\"type\":\"BOOLEAN\"},{\"name\":\"recent\",\"type\":\"DOUBLE\"},"
        + "{\"name\":\"state\",\"type\":\"STRING\"}],"
        + "\"features\":[{\"name\":\"recent\",\"view\":\"delays_by_origin\",\"view_version\":2,\"logic\":\"sql\","
        + "\"streams\":[\"flights\"],\"column\":\"avg_delay\",\"type\":\"DOUBLE\",\"join\":\"origin\",\"ttl_ms\":7200000,"
        + "\"cut\":\"event\"},{\"name\":\"state\",\"view\":\"airport_state\",\"view_version\":1,\"logic\":\"sql\","
        + "\"streams\":[\"airports\"],\"column\":\"state\",\"type\":\"STRING\",\"join\":\"origin\",\"ttl_ms\":-1,"
        + "\"cut\":\"tick\"}]}\n");

    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--json");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: --json prints a plan: give it with --dry-run");
  }

  @Test
  void aPlanCutByEventTimeSaysSoAndWhatItReads() {
    String text = TrainingSetPlans.text(PLAN.toBuilder().setCutRule("event-time known-at").setReadThrough("")
        .setTargetEventsExact(false).setTargetEvents(53_378).setTick(9).build());
    assertThat(text).contains("""
          labels    stream flights, events where distance > 100
          cut       by event time: each feature is the fold of the events before the label event in event-time order,\
         acknowledged by the ledger by then
          stop      to latest, reads every stream through tick 9 of the tenant clock
          events    at most 53,378 (the streams' events)
          features
        """);
  }

  @Test
  void noWaitReturnsOnceRegisteredAndStatusFollows() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--feature", "a.x", "--no-wait");
    assertThat(r.exitCode()).as(r.errors()).isEqualTo(0);
    assertThat(r.out()).isEqualTo("Building training set delayed (RUNNING, 100 events to read) into /d/delayed.parquet;"
        + " follow it with: streamfold training-set status delayed\n");
    assertThat((ExportTrainingSetRequest) received.get(0)).satisfies(q -> assertThat(q.getDetach()).isTrue());

    r = cli.run("training-set", "status", "delayed");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(r.out()).isEqualTo("Training set delayed RUNNING: 50 of 100 events read, 20 rows, 1.5 s, output"
        + " /d/delayed.parquet, manifest /d/delayed.parquet.manifest.json\n");
  }

  @Test
  void errorsAreOneLine() {
    CliRun r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--features", "nope.x");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: NOT_FOUND: transformation 'nope' does not exist in tenant 'demo'");

    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin",
        "--label", "delay >= 15", "--features", "v.broken");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: ABORTED: training set 'delayed' FAILED: boom");

    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin", "--label", "x");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo("error: give at least one feature: --features VIEW.column,... or --feature VIEW.column");

    r = cli.run("training-set", "create", "delayed", "--label-stream", "flights", "--entity", "origin", "--label", "x",
        "--features", "a.x@f(b");
    assertThat(r.errors()).isEqualTo("error: --features: unclosed '(' in 'a.x@f(b'");

    assertThat(new CliRunner().run("training-set", "create", "delayed", "--entity", "origin").exitCode()).isEqualTo(2);
  }
}
