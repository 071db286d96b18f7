package dev.streamfold.query;

import dev.streamfold.views.ViewReader;
import io.netty.handler.codec.redis.RedisMessage;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]} over the rows of the connection's
 * tenant. One SCAN call reads one page from {@link ViewReader#scan}; MATCH and TYPE filter that
 * page afterwards, as in Redis, so a page may be empty while the cursor is not 0.
 */
final class ScanCommand {
  /** Redis's default COUNT. */
  static final long DEFAULT_COUNT = 10;
  private static final BigInteger UNSIGNED_LONG_RANGE = BigInteger.ONE.shiftLeft(64);

  private final ViewReader reader;

  ScanCommand(ViewReader reader) {
    this.reader = reader;
  }

  /**
   * Run SCAN.
   *
   * @param session the connection
   * @param request {@code SCAN cursor [options]}
   * @return {@code [next cursor, [keys]]}
   * @throws RespException {@code ERR invalid cursor} if the cursor is not an unsigned 64-bit number,
   *     {@code ERR syntax error} for an unknown or incomplete option or a COUNT below 1,
   *     {@code ERR value is not an integer or out of range} if COUNT is not an integer
   */
  RedisMessage run(Session session, Request request) {
    String cursor = parseCursor(request.string(1));
    long count = DEFAULT_COUNT;
    RedisGlob match = null;
    String type = null;
    for (int i = 2; i < request.size(); i += 2) {
      String option = request.lower(i);
      boolean hasValue = i + 1 < request.size();
      if (option.equals("count") && hasValue) {
        count = request.integer(i + 1, RespException.notAnInteger());
        if (count < 1) {
          throw RespException.syntax();
        }
      } else if (option.equals("match") && hasValue) {
        String pattern = request.string(i + 1);
        match = pattern.equals("*") ? null : RedisGlob.compile(pattern);
      } else if (option.equals("type") && hasValue) {
        type = request.string(i + 1);
      } else {
        throw RespException.syntax();
      }
    }
    ViewReader.ScanPage page = reader.scan(session.tenant(), cursor, count);
    List<String> keys = new ArrayList<>();
    if (type == null || type.equalsIgnoreCase("hash")) {
      for (String key : page.keys()) {
        if (match == null || match.matches(key)) {
          keys.add(key);
        }
      }
    }
    return Replies.array(List.of(Replies.bulk(page.cursor()), Replies.bulkArray(keys)));
  }

  /**
   * Parse a cursor like Redis's {@code strtoul}: an optional sign then decimal digits, negative values
   * wrapping around 2^64.
   *
   * @param text the cursor as sent
   * @return the cursor as an unsigned decimal text
   * @throws RespException {@code ERR invalid cursor} if it is not such a number or out of range
   */
  static String parseCursor(String text) {
    if (!text.matches("[+-]?[0-9]+")) {
      throw RespException.err("invalid cursor");
    }
    BigInteger value = new BigInteger(text.startsWith("+") ? text.substring(1) : text);
    if (value.abs().compareTo(UNSIGNED_LONG_RANGE) >= 0) {
      throw RespException.err("invalid cursor");
    }
    return value.signum() < 0 ? value.add(UNSIGNED_LONG_RANGE).toString() : value.toString();
  }
}
