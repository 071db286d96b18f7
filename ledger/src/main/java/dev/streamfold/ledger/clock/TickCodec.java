package dev.streamfold.ledger.clock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.Tick;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stored form of a {@link Tick}: UTF-8 JSON, e.g.
 * {@code {"tick":7,"time_ms":1764900000000,"streams":{"airports":"10:3:-1:-1","flights":"11:40:0:999,12:38:1:999"}}},
 * each stream's vector in {@link PositionVector}'s text form. Stateless.
 */
public final class TickCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TickCodec() {}

  /** Encode a tick. */
  public static byte[] encode(Tick tick) {
    ObjectNode root = JSON.createObjectNode();
    root.put("tick", tick.number());
    root.put("time_ms", tick.timeMs());
    ObjectNode streams = root.putObject("streams");
    tick.streams().forEach((stream, vector) -> streams.put(stream, vector.toString()));
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Decode a stored tick.
   *
   * @param bytes the stored form
   * @param where where it was read, for the error (e.g. the clock topic and message ID)
   * @return the tick
   * @throws IllegalStateException if the bytes are not a tick (the message says where and why)
   */
  public static Tick decode(byte[] bytes, String where) {
    try {
      JsonNode root = JSON.readTree(bytes);
      if (root == null || !root.path("tick").canConvertToLong() || !root.path("time_ms").canConvertToLong()
          || !root.path("streams").isObject()) {
        throw new IllegalStateException("not a tick at " + where + ": expected tick, time_ms and streams");
      }
      TreeMap<String, PositionVector> streams = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = root.get("streams").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        streams.put(e.getKey(), PositionVector.parse(e.getValue().asText()));
      }
      return new Tick(root.get("tick").asLong(), root.get("time_ms").asLong(), streams);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("not a tick at " + where + ": " + e.getMessage(), e);
    }
  }
}
