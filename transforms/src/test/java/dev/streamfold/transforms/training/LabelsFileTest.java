package dev.streamfold.transforms.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabelsFileTest {
  @TempDir
  Path dir;

  private static List<String> types(LabelsFile file) {
    return file.columns().stream().map(c -> c.name() + ":" + c.type()).toList();
  }

  @Test
  void csvColumnsAreTypedByWhatEveryValueLooksLike() throws Exception {
    Path csv = Files.writeString(dir.resolve("labels.csv"), """
        id,origin,ts,zip,score,late,note
        1,ATL,2001-01-08 00:01:00,02134,1.5,true,"a, b"
        2,HNL,2001-01-08T00:02:00Z,12,2,FALSE,
        3,,2001-01-08,7,-3e2,true,x
        """);
    LabelsFile file = LabelsFile.read(csv, "ts");
    assertThat(types(file)).containsExactly("id:BIGINT", "origin:STRING", "ts:TIMESTAMP", "zip:STRING", "score:DOUBLE",
        "late:BOOLEAN", "note:STRING");
    assertThat(file.rows()).isEqualTo(3);
    Path sorted = dir.resolve("sorted.tsv");
    file.writeInTimeOrder(sorted);
    assertThat(Files.readAllLines(sorted)).containsExactly(
        ms("2001-01-08T00:00:00Z") + "\t{\"id\":3,\"origin\":null,\"ts\":" + ms("2001-01-08T00:00:00Z")
            + ",\"zip\":\"7\",\"score\":-300.0,\"late\":true,\"note\":\"x\"}",
        ms("2001-01-08T00:01:00Z") + "\t{\"id\":1,\"origin\":\"ATL\",\"ts\":" + ms("2001-01-08T00:01:00Z")
            + ",\"zip\":\"02134\",\"score\":1.5,\"late\":true,\"note\":\"a, b\"}",
        ms("2001-01-08T00:02:00Z") + "\t{\"id\":2,\"origin\":\"HNL\",\"ts\":" + ms("2001-01-08T00:02:00Z")
            + ",\"zip\":\"12\",\"score\":2.0,\"late\":false,\"note\":null}");
  }

  @Test
  void jsonLinesAndParquetKeepTheirTypes() throws Exception {
    Path jsonl = Files.writeString(dir.resolve("labels.jsonl"), """
        {"origin":"ATL","ts":"2001-01-08T01:00:00+01:00","n":3,"tags":["a"]}

        {"origin":"HNL","ts":"2001-01-08 00:00:30","n":4.5,"extra":true}
        """);
    LabelsFile file = LabelsFile.read(jsonl, "ts");
    assertThat(types(file)).containsExactly("origin:STRING", "ts:TIMESTAMP", "n:DOUBLE", "tags:STRING",
        "extra:BOOLEAN");
    Path inOrder = dir.resolve("in-order.tsv");
    file.writeInTimeOrder(inOrder);
    assertThat(Files.readAllLines(inOrder)).extracting(line -> Long.parseLong(line.substring(0, line.indexOf('\t'))))
        .containsExactly(ms("2001-01-08T00:00:00Z"), ms("2001-01-08T00:00:30Z"));

    Path parquet = dir.resolve("labels.parquet");
    TrainingSetColumns columns = new TrainingSetColumns(List.of("origin", "at", "n", "x"),
        List.of("STRING", "TIMESTAMP", "INT", "DOUBLE"));
    try (TrainingSetWriter writer = TrainingSetWriter.open(TrainingSetFormat.PARQUET, parquet, columns)) {
      writer.write(new Object[] {"ATL", ms("2001-01-08T00:01:00Z"), 3, 1.5});
      writer.write(new Object[] {null, ms("2001-01-08T00:00:00Z"), null, null});
    }
    LabelsFile fromParquet = LabelsFile.read(parquet, "at");
    assertThat(types(fromParquet)).containsExactly("origin:STRING", "at:TIMESTAMP", "n:INT", "x:DOUBLE");
    Path sorted = dir.resolve("sorted.tsv");
    fromParquet.writeInTimeOrder(sorted);
    assertThat(Files.readAllLines(sorted)).containsExactly(
        ms("2001-01-08T00:00:00Z") + "\t{\"origin\":null,\"at\":" + ms("2001-01-08T00:00:00Z")
            + ",\"n\":null,\"x\":null}",
        ms("2001-01-08T00:01:00Z") + "\t{\"origin\":\"ATL\",\"at\":" + ms("2001-01-08T00:01:00Z")
            + ",\"n\":3,\"x\":1.5}");
    assertThat(fromParquet.sha256()).hasSize(64);
  }

  @Test
  void badFilesAreRefusedNamingTheFileRowAndColumn() throws Exception {
    Path csv = Files.writeString(dir.resolve("labels.csv"), "origin,ts\nATL,2001-01-08 00:01\nHNL,yesterday\n");
    assertThatThrownBy(() -> LabelsFile.read(csv, "time"))
        .isInstanceOf(TransformException.InvalidTrainingSet.class)
        .hasMessage("--time 'time': labels file " + csv + " has no such column; its columns: [origin, ts]");
    assertThatThrownBy(() -> LabelsFile.read(csv, "ts"))
        .hasMessage("labels file " + csv + ", row 2, column ts: cannot read 'yesterday' as a timestamp; give ISO-8601,"
            + " e.g. 2001-01-08T00:01:00Z, 2001-01-08 00:01:00 (UTC) or 2001-01-08");
    Path epoch = Files.writeString(dir.resolve("epoch.jsonl"), "{\"ts\":978912000000}\n");
    assertThatThrownBy(() -> LabelsFile.read(epoch, "ts")).hasMessageContaining("line 1, column ts: '978912000000'"
        + " is a number");
    Path empty = Files.writeString(dir.resolve("empty.csv"), "origin,ts\nATL,\n");
    assertThatThrownBy(() -> LabelsFile.read(empty, "ts")).hasMessageContaining("row 1, column ts: no timestamp");
    Path ragged = Files.writeString(dir.resolve("ragged.csv"), "origin,ts\nATL,2001-01-08,x\n");
    assertThatThrownBy(() -> LabelsFile.read(ragged, "ts")).hasMessageContaining("row 1 (line 2): 3 fields, but the"
        + " header has 2");
    Path reserved = Files.writeString(dir.resolve("reserved.csv"), "_key,ts\nATL,2001-01-08\n");
    assertThatThrownBy(() -> LabelsFile.read(reserved, "ts")).hasMessageContaining("column '_key' starts with '_'");
    Path spaced = Files.writeString(dir.resolve("spaced.csv"), "flight id,ts\n1,2001-01-08\n");
    assertThatThrownBy(() -> LabelsFile.read(spaced, "ts")).hasMessageContaining("invalid column name 'flight id'");
    Path notJson = Files.writeString(dir.resolve("bad.jsonl"), "{\"ts\":\"2001-01-08\"}\n{oops\n");
    assertThatThrownBy(() -> LabelsFile.read(notJson, "ts")).hasMessageContaining("line 2: not JSON");
    assertThatThrownBy(() -> LabelsFile.read(dir.resolve("none.csv"), "ts")).hasMessageContaining("no such file");
    assertThatThrownBy(() -> LabelsFile.read(dir.resolve("labels.txt"), "ts"))
        .hasMessageContaining("use .csv, .jsonl (or .ndjson) or .parquet");
    assertThatThrownBy(() -> LabelsFile.read(csv, " ")).hasMessageContaining("--time is required");
    Path garbage = Files.writeString(dir.resolve("garbage.parquet"), "not parquet");
    assertThatThrownBy(() -> LabelsFile.read(garbage, "ts")).hasMessage("--labels-file " + garbage + ": not a Parquet"
        + " file (no Parquet magic number at its end)");
    Path numbers = dir.resolve("numbers.parquet");
    try (TrainingSetWriter writer = TrainingSetWriter.open(TrainingSetFormat.PARQUET, numbers,
        new TrainingSetColumns(List.of("ts"), List.of("BIGINT")))) {
      writer.write(new Object[] {978912000000L});
    }
    assertThatThrownBy(() -> LabelsFile.read(numbers, "ts")).hasMessageContaining("row 1, column ts: a BIGINT column");
  }

  @Test
  void wholeNumbersABigintWouldChangeStayTextAndHeadersAreCheckedForDuplicates() throws Exception {
    Path csv = Files.writeString(dir.resolve("ids.csv"), "\uFEFFid,zero,ts\n99999999999999999999,-0,2001-01-08\n"
        + "1,1.5,2001-01-08 00:00:00+0000\n\n");
    LabelsFile file = LabelsFile.read(csv, "ts");
    assertThat(types(file)).containsExactly("id:STRING", "zero:STRING", "ts:TIMESTAMP");
    assertThat(file.rows()).as("the blank last line is no row").isEqualTo(2);
    Path sorted = dir.resolve("sorted.tsv");
    file.writeInTimeOrder(sorted);
    assertThat(Files.readAllLines(sorted).get(0)).contains("\"id\":\"99999999999999999999\",\"zero\":\"-0\"");
    Path twice = Files.writeString(dir.resolve("twice.csv"), "origin,ts,Origin\nATL,2001-01-08,x\n");
    assertThatThrownBy(() -> LabelsFile.read(twice, "ts")).hasMessageContaining("column 'Origin' appears twice");
  }

  @Test
  void timesAreIsoWithOrWithoutAZone() {
    assertThat(LabelsFile.timestamp("w", "2001-01-08T00:01:00Z")).isEqualTo(ms("2001-01-08T00:01:00Z"));
    assertThat(LabelsFile.timestamp("w", "2001-01-08T02:01:00.250+02:00")).isEqualTo(ms("2001-01-08T00:01:00.250Z"));
    assertThat(LabelsFile.timestamp("w", " 2001-01-08 00:01 ")).isEqualTo(ms("2001-01-08T00:01:00Z"));
    assertThat(LabelsFile.timestamp("w", "2001-01-08")).isEqualTo(ms("2001-01-08T00:00:00Z"));
    assertThat(LabelsFile.timestamp("w", "2001-01-08T02:01:00+0200")).isEqualTo(ms("2001-01-08T00:01:00Z"));
    assertThat(new StreamColumn("ts", "TIMESTAMP").type()).isEqualTo("TIMESTAMP");
  }

  private static long ms(String instant) {
    return Instant.parse(instant).toEpochMilli();
  }
}
