package dev.streamfold.transforms.fold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.transforms.TransformException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link FoldClasses#inspect} accepts and refuses, before anything is stored or started. */
class FoldClassesTest {
  @TempDir
  static Path dir;
  private static Path jar;

  /** A jar of the compiled {@link TestFolds} classes. */
  @BeforeAll
  static void buildJar() throws IOException {
    jar = dir.resolve("folds.jar");
    Files.write(jar, TestFolds.jar());
  }

  @Test
  void acceptsAFoldAndReportsItsColumnsKeyFirst() {
    FoldClasses.Shape shape = FoldClasses.inspect(jar, TestFolds.Sum.class.getName());
    assertThat(shape.viewColumns()).containsExactly(java.util.Map.entry("group", "STRING"),
        java.util.Map.entry("sum", "BIGINT"), java.util.Map.entry("events", "INT"),
        java.util.Map.entry("last", "ARRAY<DOUBLE>"), java.util.Map.entry("at", "TIMESTAMP"),
        java.util.Map.entry("even", "BOOLEAN"), java.util.Map.entry("label", "STRING"));
    assertThat(shape.stateType()).contains("PojoType");
  }

  @Test
  void refusesAStateFlinkWouldSerializeWithKryo() {
    assertThatThrownBy(() -> FoldClasses.inspect(jar, TestFolds.KryoState.class.getName()))
        .isInstanceOf(TransformException.InvalidFold.class)
        .hasMessageContaining("Kryo").hasMessageContaining("items");
  }

  @Test
  void refusesMissingClassesWrongTypesAndBadShapes() throws Exception {
    assertThatThrownBy(() -> FoldClasses.inspect(jar, "com.acme.Missing"))
        .isInstanceOf(TransformException.InvalidFold.class).hasMessage("class com.acme.Missing is not in the jar");
    assertThatThrownBy(() -> FoldClasses.inspect(jar, TestFolds.class.getName()))
        .hasMessageContaining("does not implement " + Transformation.class.getName());
    assertThatThrownBy(() -> FoldClasses.inspect(jar, TestFolds.NoDefaultConstructor.class.getName()))
        .hasMessageContaining("has no public no-argument constructor");
    assertThatThrownBy(() -> FoldClasses.inspect(jar, TestFolds.UndeclaredColumnBase.class.getName()))
        .hasMessageContaining("must be public and not abstract");
    assertThatThrownBy(() -> FoldClasses.inspect(jar, TestFolds.KeyTwice.class.getName()))
        .hasMessageContaining("column 'n' is declared twice (or is the key column)");
    assertThatThrownBy(() -> FoldClasses.inspect(dir.resolve("none.jar"), TestFolds.Sum.class.getName()))
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> FoldClasses.inspect(jar, " "))
        .hasMessageContaining("no class given");
    java.nio.file.Path text = dir.resolve("text.jar");
    java.nio.file.Files.writeString(text, "not a jar\n");
    assertThatThrownBy(() -> FoldClasses.inspect(text, TestFolds.Sum.class.getName()))
        .isInstanceOf(TransformException.InvalidFold.class).hasMessageStartingWith("the jar given is not a jar (zip) file");
  }

  @Test
  void columnTypesAreChecked() {
    assertThatThrownBy(() -> new Column("x", "MAP<STRING,STRING>"))
        .hasMessageContaining("column 'x' has unsupported type 'MAP<STRING,STRING>'");
    assertThatThrownBy(() -> new Column("a b", "BIGINT")).hasMessageContaining("invalid column name 'a b'");
    assertThat(new Column("x", "array<bigint>").type()).isEqualTo("ARRAY<BIGINT>");
  }
}
