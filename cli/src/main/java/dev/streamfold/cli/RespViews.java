package dev.streamfold.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads materialized views the way any Redis client does: through the query-service's RESP port, rows
 * as hashes {@code <view>:<key>}.
 */
final class RespViews implements AutoCloseable {
  /** Timeout of one RESP command. */
  static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final RespConnection connection;

  private RespViews(RespConnection connection) {
    this.connection = connection;
  }

  /**
   * Connect to the query-service.
   *
   * @param host host name or address
   * @param port RESP port
   * @param user the AUTH user: the tenant to read (the admin token reads the tenant named so; a tenant token
   *     only its own)
   * @param token API token (the AUTH password)
   * @return the reader; close it
   * @throws RespException.NotConnected if it cannot be reached (within {@link #DEFAULT_COMMAND_TIMEOUT}) or AUTH
   *     fails
   */
  static RespViews connect(String host, int port, String user, String token) {
    return new RespViews(RespConnection.open(host, port, user, token, DEFAULT_COMMAND_TIMEOUT));
  }

  /**
   * Read one row: {@code HGETALL <view>:<key>}.
   *
   * @param view view name
   * @param key row key
   * @return column to value text; empty when there is no such row
   * @throws RespException if the query-service fails or does not answer within {@link #DEFAULT_COMMAND_TIMEOUT}
   */
  Map<String, String> row(String view, String key) {
    List<?> flat = list(connection.command("HGETALL", view + ":" + key));
    Map<String, String> row = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      row.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
    }
    return row;
  }

  /**
   * List the row keys of a view: {@code SCAN 0 MATCH <view>:* COUNT 1000} until the cursor is 0.
   *
   * @param view view name
   * @return row keys (without the {@code <view>:} prefix), each once, in scan order
   * @throws RespException if the query-service fails or does not answer within {@link #DEFAULT_COMMAND_TIMEOUT}
   */
  List<String> keys(String view) {
    Set<String> keys = new LinkedHashSet<>();
    String prefix = view + ":";
    String cursor = "0";
    do {
      List<?> page = list(connection.command("SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"));
      cursor = String.valueOf(page.get(0));
      for (Object k : list(page.get(1))) {
        if (String.valueOf(k).startsWith(prefix)) {
          keys.add(String.valueOf(k).substring(prefix.length()));
        }
      }
    } while (!cursor.equals("0"));
    return new ArrayList<>(keys);
  }

  /**
   * Read a view's metadata: {@code VIEW.INFO <view>} (a Streamfold command of the query-service).
   *
   * @param view view name
   * @return field to value text in the server's order (position entries joined with ',')
   * @throws RespException.ErrorReply if the view does not exist (the server's error names it)
   * @throws RespException if the query-service fails or does not answer within {@link #DEFAULT_COMMAND_TIMEOUT}
   */
  Map<String, String> info(String view) {
    List<?> flat = list(connection.command("VIEW.INFO", view));
    Map<String, String> info = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      Object value = flat.get(i + 1);
      String text = value instanceof List<?> list
          ? String.join(",", list.stream().map(String::valueOf).toList())
          : value == null ? "" : String.valueOf(value);
      info.put(String.valueOf(flat.get(i)), text);
    }
    return info;
  }

  /** The reply as an array (RESP3 maps come as their keys and values). */
  private static List<?> list(Object reply) {
    if (reply instanceof List<?> list) {
      return list;
    }
    throw new RespException("expected an array reply, got " + reply);
  }

  @Override
  public void close() {
    connection.close();
  }
}
