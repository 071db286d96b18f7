package dev.streamfold.query;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns what Netty's Redis decoder read into requests, with Redis's rules: a request is an array of
 * bulk strings, or an inline command line split like {@code sdssplitargs} (quotes and escapes); empty
 * arrays and blank lines are ignored.
 */
final class RequestParser {
  private RequestParser() {}

  /**
   * Parse one decoded message.
   *
   * @param message a top-level message from {@link RequestAssembler} (an inline command line), or an array of bulk strings
   * @return the requests it holds: usually one, none for an empty array or blank line
   * @throws ProtocolException if an array holds anything but bulk strings, or an inline line has
   *     unbalanced quotes
   */
  static List<Request> parse(RedisMessage message) {
    if (message instanceof ArrayRedisMessage array) {
      return array.isNull() || array.children().isEmpty() ? List.of() : List.of(fromArray(array));
    }
    if (message instanceof InlineCommandRedisMessage inline) {
      return inlineLines(inline.content());
    }
    // Redis reads any line that does not start with '*' as an inline command, type byte included.
    if (message instanceof SimpleStringRedisMessage simple) {
      return inlineLines("+" + simple.content());
    }
    if (message instanceof ErrorRedisMessage error) {
      return inlineLines("-" + error.content());
    }
    if (message instanceof IntegerRedisMessage integer) {
      return inlineLines(":" + integer.value());
    }
    if (message instanceof FullBulkStringRedisMessage bulk) {
      List<Request> requests = new ArrayList<>(inlineLines("$" + (bulk.isNull() ? -1 : bulk.content().readableBytes())));
      if (!bulk.isNull()) {
        requests.addAll(inlineLines(bulk.content().toString(StandardCharsets.UTF_8)));
      }
      return requests;
    }
    throw new ProtocolException("unexpected message " + message.getClass().getSimpleName());
  }

  private static Request fromArray(ArrayRedisMessage array) {
    List<byte[]> args = new ArrayList<>(array.children().size());
    for (RedisMessage child : array.children()) {
      if (child instanceof FullBulkStringRedisMessage bulk) {
        if (bulk.isNull()) {
          throw new ProtocolException("invalid bulk length");
        }
        args.add(ByteBufUtil.getBytes(bulk.content()));
      } else {
        throw new ProtocolException("expected '$', got '" + typeByte(child) + "'");
      }
    }
    return new Request(args);
  }

  static char typeByte(RedisMessage message) {
    if (message instanceof SimpleStringRedisMessage) {
      return '+';
    } else if (message instanceof ErrorRedisMessage) {
      return '-';
    } else if (message instanceof IntegerRedisMessage) {
      return ':';
    } else if (message instanceof ArrayRedisMessage) {
      return '*';
    } else if (message instanceof InlineCommandRedisMessage inline && !inline.content().isEmpty()) {
      return inline.content().charAt(0);
    }
    return ' ';
  }

  /** Split inline text into lines (Redis ends a line at '\n' and drops a trailing '\r'). */
  private static List<Request> inlineLines(String text) {
    List<Request> requests = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      String trimmed = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
      List<byte[]> args = splitArgs(trimmed.getBytes(StandardCharsets.UTF_8));
      if (!args.isEmpty()) {
        requests.add(new Request(args));
      }
    }
    return requests;
  }

  /**
   * Split an inline command line as Redis's {@code sdssplitargs} does: blanks separate arguments;
   * {@code "..."} may hold {@code \n \r \t \b \a \\ \" \xHH} escapes; {@code '...'} may hold {@code \'};
   * a closing quote must be followed by a blank or the end; a NUL byte ends the line.
   *
   * @param line the line without its line ending
   * @return the arguments, empty for a blank line
   * @throws ProtocolException {@code unbalanced quotes in request} if quotes do not close properly
   */
  static List<byte[]> splitArgs(byte[] line) {
    List<byte[]> args = new ArrayList<>();
    int p = 0;
    while (true) {
      while (p < line.length && line[p] != 0 && isSpace(line[p])) {
        p++;
      }
      if (p >= line.length || line[p] == 0) {
        return args;
      }
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      ByteArrayOutputStream current = new ByteArrayOutputStream();
      while (!done) {
        int c = at(line, p);
        if (inDouble) {
          if (c == '\\' && at(line, p + 1) == 'x' && isHex(at(line, p + 2)) && isHex(at(line, p + 3))) {
            current.write(Character.digit(at(line, p + 2), 16) * 16 + Character.digit(at(line, p + 3), 16));
            p += 3;
          } else if (c == '\\' && at(line, p + 1) != 0) {
            p++;
            int escaped = at(line, p);
            current.write(switch (escaped) {
              case 'n' -> '\n';
              case 'r' -> '\r';
              case 't' -> '\t';
              case 'b' -> '\b';
              case 'a' -> 7;
              default -> escaped;
            });
          } else if (c == '"') {
            if (at(line, p + 1) != 0 && !isSpace((byte) at(line, p + 1))) {
              throw new ProtocolException("unbalanced quotes in request");
            }
            done = true;
          } else if (c == 0) {
            throw new ProtocolException("unbalanced quotes in request");
          } else {
            current.write(c);
          }
        } else if (inSingle) {
          if (c == '\\' && at(line, p + 1) == '\'') {
            p++;
            current.write('\'');
          } else if (c == '\'') {
            if (at(line, p + 1) != 0 && !isSpace((byte) at(line, p + 1))) {
              throw new ProtocolException("unbalanced quotes in request");
            }
            done = true;
          } else if (c == 0) {
            throw new ProtocolException("unbalanced quotes in request");
          } else {
            current.write(c);
          }
        } else {
          switch (c) {
            case ' ', '\n', '\r', '\t', 0 -> done = true;
            case '"' -> inDouble = true;
            case '\'' -> inSingle = true;
            default -> current.write(c);
          }
        }
        if (at(line, p) != 0) {
          p++;
        }
      }
      args.add(current.toByteArray());
    }
  }

  /** Return the byte at {@code i} as 0..255, or 0 past the end (the C string terminator). */
  private static int at(byte[] line, int i) {
    return i < line.length ? line[i] & 0xff : 0;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0b || b == '\f';
  }

  private static boolean isHex(int c) {
    return Character.digit(c, 16) >= 0 && c < 128;
  }
}
