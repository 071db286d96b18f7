package dev.streamfold.query;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One command as the client sent it: the command name and its arguments, as bytes. The lower-case name is
 * computed once (every request is looked up by it several times).
 */
final class Request {
  private final List<byte[]> args;
  private String name;

  /**
   * Create a request.
   *
   * @param args name first, then the arguments; at least one element (the list is copied, the arrays are not)
   * @throws IllegalArgumentException if there is no command name
   */
  Request(List<byte[]> args) {
    this(List.copyOf(args), true);
  }

  /** @param args unmodifiable (the flag only tells this constructor from the public one) */
  private Request(List<byte[]> args, boolean unmodifiable) {
    this.args = args;
    if (this.args.isEmpty()) {
      throw new IllegalArgumentException("a request needs at least the command name");
    }
  }

  /**
   * Create a request that takes over {@code args} without copying it (the decoder's array of a request).
   *
   * @param args name first, then the arguments; at least one element; the caller must not change or reuse it
   * @return the request
   * @throws IllegalArgumentException if there is no command name
   */
  static Request owning(byte[][] args) {
    return new Request(java.util.Collections.unmodifiableList(Arrays.asList(args)), true);
  }

  /** Name first, then the arguments; unmodifiable. */
  List<byte[]> args() {
    return args;
  }

  /**
   * Create a request from texts (tests and inline commands).
   *
   * @param args name first, then the arguments
   * @return the request
   * @throws IllegalArgumentException if there is no command name
   */
  static Request of(String... args) {
    return new Request(Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
  }

  /** Number of elements, the name included (Redis's argc). */
  int size() {
    return args.size();
  }

  /**
   * Return one element as UTF-8 text.
   *
   * @param index 0 for the name, 1 for the first argument, …
   * @return the text
   * @throws IndexOutOfBoundsException if there is no such element
   */
  String string(int index) {
    return new String(args.get(index), StandardCharsets.UTF_8);
  }

  /**
   * Return one element lower-cased, for matching names and options.
   *
   * @param index 0 for the name, 1 for the first argument, …
   * @return the lower-case text
   * @throws IndexOutOfBoundsException if there is no such element
   */
  String lower(int index) {
    return string(index).toLowerCase(Locale.ROOT);
  }

  /**
   * Return one element as a 64-bit signed integer, parsed as strictly as Redis does.
   *
   * @param index 1 for the first argument, …
   * @param error the error to throw when it is not an integer
   * @return the value
   * @throws RespException {@code error} if the element is not a decimal integer in range
   */
  long integer(int index, RespException error) {
    String text = string(index);
    if (!text.matches("0|-?[1-9][0-9]*")) {
      throw error;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw error;
    }
  }

  /** Return the command name lower-cased. */
  String name() {
    String lower = name;
    if (lower == null) {
      lower = lower(0);
      name = lower;
    }
    return lower;
  }
}
