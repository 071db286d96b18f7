package dev.streamfold.transforms.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetValue;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.training.TrainingSetColumns;
import dev.streamfold.transforms.training.TrainingSetFormat;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.transforms.training.TrainingSetWriter;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wire side of training sets: request to spec, errors, progress and summary, rows read back from each format. */
class TrainingSetGrpcMappingTest {
  private static ExportTrainingSetRequest.Builder request() {
    return ExportTrainingSetRequest.newBuilder().setTenant("acme").setName("delayed").setLabelStream("flights")
        .setEntity("origin").setLabel("delay >= 15")
        .addFeatures("delays_by_origin.flights")
        .addFeatures("route_delay=delays_by_route.avg_delay@origin || '>' || destination/2h");
  }

  @Test
  void requestBecomesASpecWithDefaults() {
    TrainingSetSpec spec = TrainingSetExport.spec(request().build());
    assertThat(spec.tenant()).isEqualTo("acme");
    assertThat(spec.labelStream()).isEqualTo("flights");
    assertThat(spec.where()).isEmpty();
    assertThat(spec.to().kind()).isEqualTo(ReplayCursor.Kind.LATEST);
    assertThat(spec.output()).isEqualTo("delayed.parquet");
    assertThat(spec.command()).startsWith("ExportTrainingSet ").contains("name: \"delayed\"").doesNotContain("\n");
    assertThat(spec.features()).hasSize(2);
    assertThat(spec.features().get(0).name()).isEqualTo("delays_by_origin__flights");
    assertThat(spec.features().get(1).name()).isEqualTo("route_delay");
    assertThat(spec.features().get(1).join()).isEqualTo("origin || '>' || destination");
    assertThat(spec.features().get(1).ttlMs()).isEqualTo(7_200_000);

    TrainingSetSpec exact = TrainingSetExport.spec(request().setTo("12:5:-1:4").setBefore(true).setOut("/tmp/x.csv")
        .setWhere("distance > 500").setCommand("streamfold training-set create delayed ...").build());
    assertThat(exact.to().kind()).isEqualTo(ReplayCursor.Kind.MESSAGE);
    assertThat(exact.to().inclusive()).isFalse();
    assertThat(exact.output()).isEqualTo("/tmp/x.csv");
    assertThat(exact.where()).isEqualTo("distance > 500");
    assertThat(exact.command()).isEqualTo("streamfold training-set create delayed ...");
  }

  @Test
  void aTenantTokensOutputStaysInItsTenantsDirectory() throws Exception {
    io.grpc.Context tenantCall = io.grpc.Context.current().withValue(dev.streamfold.api.auth.Caller.CONTEXT_KEY,
        dev.streamfold.api.auth.Caller.ofTenant("acme", "id"));
    assertThat(tenantCall.call(() -> TrainingSetExport.spec(request().build()).output())).startsWith("acme/");
    assertThat(tenantCall.call(() -> TrainingSetExport.spec(request().setOut("sub/x.csv").build()).output()))
        .isEqualTo("acme/sub/x.csv");
    for (String out : new String[] {"/tmp/x.parquet", "../other/x.parquet", "a/../../x.parquet"}) {
      assertThatThrownBy(() -> tenantCall.call(() -> TrainingSetExport.spec(request().setOut(out).build())))
          .as(out).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("training-sets/acme/");
    }
    io.grpc.Context adminCall = io.grpc.Context.current().withValue(dev.streamfold.api.auth.Caller.CONTEXT_KEY,
        dev.streamfold.api.auth.Caller.admin("id"));
    assertThat(adminCall.call(() -> TrainingSetExport.spec(request().setOut("/tmp/x.parquet").build()).output()))
        .isEqualTo("/tmp/x.parquet");

    // a labels file is read from the tenant's directory too; the admin token reads any path
    assertThat(tenantCall.call(() -> TrainingSetExport.spec(fileRequest().setLabelsFile("in/labels.csv").build())
        .labelsFile().path())).isEqualTo("acme/in/labels.csv");
    // an absolute path (the CLI sends one) goes on, confined: the server checks it is in the tenant's directory
    assertThat(tenantCall.call(() -> TrainingSetExport.spec(fileRequest().setLabelsFile("/etc/passwd.csv").build())
        .labelsFile())).isEqualTo(new dev.streamfold.transforms.training.TrainingSetSpec.FileLabels("/etc/passwd.csv",
            "ts", "acme"));
    for (String file : new String[] {"../other/labels.csv", "a/../../labels.csv"}) {
      assertThatThrownBy(() -> tenantCall.call(() -> TrainingSetExport.spec(fileRequest().setLabelsFile(file).build())))
          .as(file).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("field 'labels_file': with a tenant token a labels file is read from the server's"
              + " training-sets/acme/ directory");
    }
    assertThat(adminCall.call(() -> TrainingSetExport.spec(fileRequest().build()).labelsFile()))
        .isEqualTo(new dev.streamfold.transforms.training.TrainingSetSpec.FileLabels("/data/labels.csv", "ts"));
  }

  @Test
  void cutRuleDefaultsByLabelSourceAndKnownAtCutsByEventTime() {
    assertThat(TrainingSetExport.spec(request().build()).cut()).isEqualTo(TrainingSetSpec.Cut.AS_SERVED);
    assertThat(TrainingSetExport.spec(request().setCut("event-time").build()).cut())
        .isEqualTo(TrainingSetSpec.Cut.EVENT_TIME);
    assertThat(TrainingSetExport.spec(request().setKnownAt(true).build()).cut())
        .isEqualTo(TrainingSetSpec.Cut.EVENT_TIME_KNOWN_AT);
    assertThat(TrainingSetExport.spec(fileRequest().setKnownAt(false).build()).cut())
        .isEqualTo(TrainingSetSpec.Cut.EVENT_TIME);
    assertThatThrownBy(() -> TrainingSetExport.spec(request().setCut("by-time").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'cut': unknown cut rule 'by-time': as-served or event-time");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().setCut("as-served").setKnownAt(true).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("field 'cut': known-at cuts by event time");
  }

  /** A request with labels from a file: no label stream or label. */
  private static ExportTrainingSetRequest.Builder fileRequest() {
    return request().clearLabelStream().clearLabel().setLabelsFile("/data/labels.csv").setTimeColumn("ts")
        .setKnownAt(true);
  }

  @Test
  void missingOrMalformedFieldsAreNamed() {
    assertThatThrownBy(() -> TrainingSetExport.spec(request().clearName().build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("field 'name' is required");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().setLabelStream(" ").build()))
        .hasMessageStartingWith("field 'label_stream' is required");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().clearEntity().build()))
        .hasMessageStartingWith("field 'entity' is required");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().clearLabel().build()))
        .hasMessageStartingWith("field 'label' is required");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().clearFeatures().build()))
        .hasMessageStartingWith("field 'features' needs at least one feature");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().addFeatures("no_column").build()))
        .hasMessageStartingWith("field 'features' [2]: cannot read feature 'no_column'");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().addFeatures("v.c/soon").build()))
        .hasMessageStartingWith("field 'features' [2]: cannot read time-to-live 'soon'");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().setTo("yesterday").build()))
        .hasMessageStartingWith("field 'to': cannot read cursor 'yesterday'");
    assertThatThrownBy(() -> TrainingSetExport.spec(request().setBefore(true).build()))
        .hasMessageContaining("'before latest' is not a position");
    assertThatThrownBy(() -> TrainingSetExport.spec(fileRequest().clearTimeColumn().build()))
        .hasMessageStartingWith("field 'time_column' is required");
    assertThat(TrainingSetExport.spec(fileRequest().build()).fromFile()).isTrue();
  }

  @Test
  void errorsMapToStatusCodes() {
    assertThat(TransformStatus.toStatus(new TransformException.InvalidTrainingSet("--label: invalid expression 'x'"))
        .getStatus()).satisfies(s -> {
          assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(s.getDescription()).isEqualTo("--label: invalid expression 'x'");
        });
    assertThat(TransformStatus.toStatus(new TransformException.Conflict("training set 'x' is being built already"))
        .getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(TransformStatus.toStatus(new TransformException.NotFound("acme", "nope")).getStatus().getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void progressAndSummaryCarryTheStatus() {
    TrainingSetStatus running = new TrainingSetStatus("delayed", TrainingSetStatus.RUNNING, 40, 100, 12, "/d/x.parquet",
        "/d/x.parquet.manifest.json", "7:99:-1:-1", 1_000, 0, "");
    TrainingSetProgress p = TrainingSetExport.progress(running, 750);
    assertThat(p.getPhase()).isEqualTo("RUNNING");
    assertThat(p.getEventsRead()).isEqualTo(40);
    assertThat(p.getTargetEvents()).isEqualTo(100);
    assertThat(p.getRows()).isEqualTo(12);
    assertThat(p.getElapsedMs()).isEqualTo(750);
    assertThat(p.getStopMessageId()).isEqualTo("7:99:-1:-1");

    TrainingSetStatus complete = new TrainingSetStatus("delayed", TrainingSetStatus.COMPLETE, 100, 100, 80,
        "/d/x.parquet", "/d/x.parquet.manifest.json", "7:99:-1:-1", 1_000, 3_000, "");
    TrainingSetDone done = TrainingSetExport.done(complete, 5);
    assertThat(done.getSeconds()).isEqualTo(2.0);
    assertThat(done.getRowsPerSecond()).isEqualTo(40.0);
    assertThat(done.getRows()).isEqualTo(80);
    assertThat(done.getEventsRead()).isEqualTo(100);
    assertThat(done.getRowsStreamed()).isEqualTo(5);
    assertThat(done.getManifest()).isEqualTo("/d/x.parquet.manifest.json");
    TrainingSetDone instant = TrainingSetExport.done(new TrainingSetStatus("e", TrainingSetStatus.COMPLETE, 0, 0, 0,
        "/d/e.csv", "/d/e.csv.manifest.json", "", 5, 5, ""), 0);
    assertThat(instant.getRowsPerSecond()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"set.parquet", "set.csv", "set.jsonl"})
  void everyFormatReadsBackToTheSameTypedValues(String file, @TempDir Path dir) throws Exception {
    LinkedHashMap<String, String> features = new LinkedHashMap<>();
    features.put("f_bigint", "BIGINT");
    features.put("f_int", "INT");
    features.put("f_double", "DOUBLE");
    features.put("f_string", "STRING");
    features.put("f_bool", "BOOLEAN");
    features.put("f_date", "DATE");
    features.put("f_decimal", "DECIMAL");
    TrainingSetColumns columns = TrainingSetColumns.of("BOOLEAN", features);
    long t = Instant.parse("2015-01-02T10:00:00Z").toEpochMilli();
    Path path = dir.resolve(file);
    try (TrainingSetWriter writer = TrainingSetWriter.open(TrainingSetFormat.of(path), path, columns)) {
      writer.write(new Object[] {"1:0:-1:-1", t, "ATL", true, 3L, 7, 12.5, "a, \"quoted\" text", false, 16_437,
          "1.50"});
      writer.write(new Object[] {"1:1:-1:-1", t + 1, "LAS", false, null, null, null, null, null, null, null});
      // the empty string, apart from null (CSV wrote both as an empty field; tryout 14)
      writer.write(new Object[] {"1:2:-1:-1", t + 2, "", false, null, null, null, "", null, null, null});
      writer.write(new Object[] {"1:3:-1:-1", t + 3, null, false, null, null, null, "", null, null, null});
    }
    List<TrainingSetRow> rows = new ArrayList<>();
    try (TrainingSetRowReader reader = TrainingSetRowReader.open(path, columns.names(), columns.types())) {
      TrainingSetRow row;
      while ((row = reader.next()) != null) {
        rows.add(row);
      }
    }
    assertThat(rows).hasSize(4);
    if (file.endsWith(".csv")) {
      assertThat(Files.readAllLines(path)).as("header unquoted; strings, dates and booleans quoted; null empty")
          .startsWith(String.join(",", columns.names()),
              "\"1:0:-1:-1\",\"2015-01-02T10:00:00Z\",\"ATL\",\"true\",3,7,12.5,\"a, \"\"quoted\"\" text\",\"false\",\"2015-01-02\",\"1.50\"");
    }
    assertThat(rows.get(2).getValues(2)).as(file + ": empty entity").isEqualTo(str(""));
    assertThat(rows.get(2).getValues(7)).as(file + ": empty string feature").isEqualTo(str(""));
    assertThat(rows.get(2).getValues(4).getIsNull()).as(file + ": null feature").isTrue();
    assertThat(rows.get(3).getValues(2).getIsNull()).as(file + ": null entity").isTrue();
    assertThat(rows.get(0).getValuesList()).containsExactly(str("1:0:-1:-1"), i64(t), str("ATL"), bool(true), i64(3),
        i64(7), TrainingSetValue.newBuilder().setDoubleValue(12.5).build(), str("a, \"quoted\" text"), bool(false),
        i64(16_437), str("1.50"));
    assertThat(rows.get(1).getValuesList()).hasSize(11);
    assertThat(rows.get(1).getValuesList().subList(0, 4)).containsExactly(str("1:1:-1:-1"), i64(t + 1), str("LAS"),
        bool(false));
    assertThat(rows.get(1).getValuesList().subList(4, 11)).allSatisfy(v -> assertThat(v.getIsNull()).isTrue());
  }

  @Test
  void aFileWithOtherColumnsIsRefused(@TempDir Path dir) throws Exception {
    TrainingSetColumns columns = TrainingSetColumns.of("INT", new LinkedHashMap<>());
    Path csv = dir.resolve("x.csv");
    try (TrainingSetWriter writer = TrainingSetWriter.open(TrainingSetFormat.CSV, csv, columns)) {
      writer.write(new Object[] {"1:0:-1:-1", 0L, "ATL", 1});
    }
    assertThatThrownBy(() -> TrainingSetRowReader.open(csv, List.of("message_id", "event_time", "entity", "target"),
        columns.types())).hasMessageContaining("expected [message_id, event_time, entity, target]");
    Files.writeString(dir.resolve("x.txt"), "");
    assertThatThrownBy(() -> TrainingSetRowReader.open(dir.resolve("x.txt"), columns.names(), columns.types()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".parquet, .csv or .jsonl");
  }

  private static TrainingSetValue str(String s) {
    return TrainingSetValue.newBuilder().setStringValue(s).build();
  }

  private static TrainingSetValue i64(long v) {
    return TrainingSetValue.newBuilder().setInt64Value(v).build();
  }

  private static TrainingSetValue bool(boolean v) {
    return TrainingSetValue.newBuilder().setBoolValue(v).build();
  }
}
