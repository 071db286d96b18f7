package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** The one Jackson mapper of the CLI (thread-safe once configured). */
public final class Json {
  /**
   * Shared mapper. Reading a document fails on anything after its value ({@code {"a":1} {"a":2}} is not one JSON
   * object). Numbers with a fraction or exponent are read as doubles.
   */
  public static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Json() {}
}
