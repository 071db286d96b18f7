package dev.streamfold.transforms.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ViewCommitSerializerTest {
  private final ViewCommitSerializer serializer = new ViewCommitSerializer();

  @Test
  void roundTripsExactlyIncludingOrderAndUnicode() throws Exception {
    Map<String, Map<String, String>> upserts = new LinkedHashMap<>();
    Map<String, String> row = new LinkedHashMap<>();
    row.put("origin", "Zürich|ZRH");
    row.put("flights", "12");
    upserts.put("Zürich|ZRH", row);
    upserts.put("ATL", new LinkedHashMap<>(Map.of("flights", "1")));
    upserts.put("empty", new LinkedHashMap<>());
    ViewCommit commit = new ViewCommit(upserts, List.of("SFO", ""), "12:34:-1:5,7:8:2:-1", 1_234_567_890_123L, 42);
    ViewCommit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(commit));
    assertThat(back).isEqualTo(commit);
    assertThat(back.upserts().keySet()).containsExactly("Zürich|ZRH", "ATL", "empty");
    assertThat(back.upserts().get("Zürich|ZRH").keySet()).containsExactly("origin", "flights");
  }

  @Test
  void roundTripsAnEmptyCommit() throws Exception {
    ViewCommit commit = new ViewCommit(Map.of(), List.of(), "", 0);
    assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(commit))).isEqualTo(commit);
  }

  @Test
  void readsVersion1CommitsOfCheckpointsTakenBefore() throws Exception {
    // version 1: position, events applied, deletes, upserts (no events behind the watermark)
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      byte[] position = "1:2:-1:-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeInt(position.length);
      out.write(position);
      out.writeLong(7);
      out.writeInt(0);
      out.writeInt(0);
    }
    assertThat(serializer.deserialize(1, bytes.toByteArray()))
        .isEqualTo(new ViewCommit(Map.of(), List.of(), "1:2:-1:-1", 7, 0));
  }

  @Test
  void rejectsAnUnknownVersion() {
    assertThatThrownBy(() -> serializer.deserialize(3, new byte[0])).hasMessageContaining("version 3");
  }
}
