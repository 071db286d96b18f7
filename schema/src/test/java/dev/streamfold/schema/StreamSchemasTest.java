package dev.streamfold.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class StreamSchemasTest {
  private static final StreamColumn DELAY = StreamColumn.parse("delay:INT NOT NULL");
  private static final StreamColumn ORIGIN = StreamColumn.parse("origin:STRING");

  @Test
  void parsesAndDescribesColumns() {
    assertThat(StreamColumn.parse("carrier:string DEFAULT \"AA\"")).isEqualTo(new StreamColumn("carrier", "STRING", false, "\"AA\""));
    assertThat(StreamColumn.parse(" seats : int not null default 150 ").describe()).isEqualTo("seats INT NOT NULL DEFAULT 150");
    assertThat(StreamColumn.parse("x:BIGINT DEFAULT null")).isEqualTo(new StreamColumn("x", "BIGINT"));
    assertThatThrownBy(() -> StreamColumn.parse("x:INT NOT NULL DEFAULT null")).as("was dropped silently")
        .hasMessage("column 'x' is NOT NULL, so its DEFAULT cannot be null");
    assertThatThrownBy(() -> StreamColumn.parse("seats:INT DEFAULT \"many\""))
        .hasMessageStartingWith("column 'seats' DEFAULT \"many\" must be a 32-bit integer");
    assertThatThrownBy(() -> StreamColumn.parse("carrier:STRING DEFAULT AA")).hasMessageContaining("a text needs quotes");
    assertThatThrownBy(() -> StreamColumn.parse("delay")).hasMessageContaining("NAME:TYPE");
    List<StreamColumn> schema = List.of(DELAY, ORIGIN, StreamColumn.parse("c:STRING DEFAULT \"a,b\""));
    assertThat(StreamColumn.decodeSchema(StreamColumn.encodeSchema(schema))).isEqualTo(schema);
  }

  @Test
  void addingAnOptionalColumnOrOneWithADefaultIsCompatible() {
    assertThat(StreamSchemas.incompatibility(List.of(DELAY, ORIGIN), List.of(DELAY, ORIGIN,
        StreamColumn.parse("carrier:STRING DEFAULT \"AA\""), StreamColumn.parse("seats:INT NOT NULL DEFAULT 150"),
        StreamColumn.parse("note:STRING")))).isNull();
    assertThat(StreamSchemas.incompatibility(List.of(DELAY, ORIGIN), List.of(DELAY))).as("an optional column removed").isNull();
  }

  @Test
  void incompatibleChangesNameTheColumn() {
    assertThat(StreamSchemas.incompatibility(List.of(DELAY, ORIGIN), List.of(StreamColumn.parse("delay:STRING NOT NULL"), ORIGIN)))
        .startsWith("column 'delay' cannot change its type from INT to STRING");
    assertThat(StreamSchemas.incompatibility(List.of(DELAY, ORIGIN), List.of(ORIGIN)))
        .startsWith("column 'delay' (delay INT NOT NULL) cannot be removed");
    assertThat(StreamSchemas.incompatibility(List.of(DELAY), List.of(DELAY, StreamColumn.parse("seats:INT NOT NULL"))))
        .startsWith("new column 'seats' is NOT NULL without a DEFAULT");
    assertThat(StreamSchemas.incompatibility(List.of(DELAY, ORIGIN), List.of(DELAY, StreamColumn.parse("origin:STRING NOT NULL"))))
        .startsWith("column 'origin' cannot become NOT NULL without a DEFAULT");
    assertThat(StreamSchemas.incompatibility(List.of(StreamColumn.parse("c:STRING DEFAULT \"AA\"")),
        List.of(StreamColumn.parse("c:STRING DEFAULT \"UA\"")))).startsWith("column 'c' cannot change its DEFAULT");
  }
}
