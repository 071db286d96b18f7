package dev.streamfold.views;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of views, each run by Redis atomically on keys of the {@link RedisKeys} layout. The rows
 * and commit scripts go by their SHA-1 (EVALSHA) and are sent in full again when Redis answers NOSCRIPT;
 * the others by EVAL.
 */
final class RedisScripts {
  /**
   * KEYS[1] the view hash; ARGV[1] the version, ARGV[2] and ARGV[3] (optional) its columns and key columns.
   * Serves it only when newer than the served one, and records its shape as the view's in the same step.
   */
  static final String SERVE = String.join("\n",
      "local v = tonumber(redis.call('HGET', KEYS[1], 'served_version') or '0')",
      "if tonumber(ARGV[1]) <= v then return 0 end",
      "if ARGV[3] then",
      "  redis.call('HSET', KEYS[1], 'served_version', ARGV[1], 'columns', ARGV[2], 'key_columns', ARGV[3])",
      "else",
      "  redis.call('HSET', KEYS[1], 'served_version', ARGV[1])",
      "end",
      "return 1");

  /**
   * KEYS[1] meta, KEYS[2] row-key set; ARGV[1] row-key prefix. Returns {position, events, clock position, key, row,
   * ...}.
   */
  static final String SNAPSHOT = String.join("\n",
      "local meta = redis.call('HMGET', KEYS[1], 'position', 'events_applied', 'clock_position')",
      "local out = {meta[1] or '', meta[2] or '0', meta[3] or ''}",
      "for _, k in ipairs(redis.call('SMEMBERS', KEYS[2])) do",
      "  out[#out + 1] = k",
      "  out[#out + 1] = redis.call('HGETALL', ARGV[1] .. k)",
      "end",
      "return out");

  /**
   * KEYS[1] the view hash; ARGV[1] the tenant, ARGV[2] the view, ARGV[3..] row keys. Follows a rollback
   * to the virtual state served in its place. Returns {source view, version, row 1, row 2, ...} (rows as
   * flat field/value arrays), or an empty array when nothing is served.
   */
  static final String ROWS = String.join("\n",
      "local h = redis.call('HMGET', KEYS[1], 'served_version', 'rollback')",
      "local src = ARGV[2]",
      "local v = h[1]",
      "if h[2] then",
      "  src = h[2]",
      "  v = redis.call('HGET', " + RedisKeys.viewLua("ARGV[1]", "src") + ", 'served_version')",
      "end",
      "if not v then return {} end",
      "local prefix = " + RedisKeys.rowPrefixLua("ARGV[1]", "src", "v"),
      "local out = {src, v}",
      "for i = 3, #ARGV do out[i] = redis.call('HGETALL', prefix .. ARGV[i]) end",
      "return out");

  /** SHA-1 hex of {@link #ROWS}: the name Redis caches it by (EVALSHA). */
  static final String ROWS_SHA1 = sha1Hex(ROWS);

  /**
   * KEYS[1] version metadata, KEYS[2] row-key set, KEYS[3..] rows. ARGV[1] events applied, ARGV[2] the
   * number of metadata field/value pairs m, then the pairs, then per row key (in KEYS order) an op:
   * "D", or "U" followed by the row key, the field count f and f field/value pairs.
   */
  static final String COMMIT = String.join("\n",
      "local committed = tonumber(redis.call('HGET', KEYS[1], 'events_applied') or '-1')",
      "local incoming = tonumber(ARGV[1])",
      "if incoming < committed then return 0 end",
      "local m = tonumber(ARGV[2])",
      "local i = 3",
      "local meta = {}",
      "for j = 1, 2 * m do meta[j] = ARGV[i]; i = i + 1 end",
      "if incoming > committed or committed == -1 then",
      "  for k = 3, #KEYS do",
      "    local op = ARGV[i]; i = i + 1",
      "    local rowKey = ARGV[i]; i = i + 1",
      "    redis.call('DEL', KEYS[k])",
      "    if op == 'D' then",
      "      redis.call('SREM', KEYS[2], rowKey)",
      "    else",
      "      local f = tonumber(ARGV[i]); i = i + 1",
      "      if f > 0 then",
      "        local fields = {}",
      "        for j = 1, 2 * f do fields[j] = ARGV[i]; i = i + 1 end",
      "        redis.call('HSET', KEYS[k], unpack(fields))",
      "      end",
      "      redis.call('SADD', KEYS[2], rowKey)",
      "    end",
      "  end",
      "end",
      "redis.call('HSET', KEYS[1], unpack(meta))",
      "return 1");

  private RedisScripts() {}

  private static String sha1Hex(String script) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is not available", e);
    }
  }
}
