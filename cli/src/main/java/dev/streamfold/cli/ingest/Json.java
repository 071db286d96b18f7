package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** The one Jackson mapper of the CLI (thread-safe once configured). */
public final class Json {
  /** Shared mapper; numbers keep their exact decimal form. */
  public static final ObjectMapper MAPPER = new ObjectMapper();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Json() {}
}
