package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A RESP3 verbatim string ({@code =<length>\r\ntxt:<text>}), as Redis 7 sends INFO and CLIENT INFO
 * to RESP3 clients.
 *
 * @param format three-letter format, {@code txt} or {@code mkd}
 * @param text the text
 */
record VerbatimStringRedisMessage(String format, String text) implements RedisMessage {
  /**
   * Create a verbatim string.
   *
   * @throws IllegalArgumentException if {@code format} is not three ASCII characters
   */
  VerbatimStringRedisMessage {
    Objects.requireNonNull(text, "text");
    if (format.length() != 3 || !StandardCharsets.US_ASCII.newEncoder().canEncode(format)) {
      throw new IllegalArgumentException("verbatim format must be 3 ASCII characters, was '" + format + "'");
    }
  }
}
