package dev.streamfold.query;

import java.util.Set;

/**
 * Redis commands that change data. Views are derived from the ledger, so query-service refuses all of
 * them with a READONLY error instead of "unknown command".
 */
final class WriteCommands {
  /** The error line every write command gets. */
  static final String READONLY = "READONLY views are read-only: rows are derived from the ledger; "
      + "append events through the ingestion API (IngestService.Append)";

  private static final Set<String> NAMES = Set.of(
      // keys
      "del", "unlink", "expire", "pexpire", "expireat", "pexpireat", "persist", "rename", "renamenx",
      "move", "copy", "restore", "migrate", "sort", "touch",
      // server
      "flushall", "flushdb", "swapdb",
      // strings
      "set", "setnx", "setex", "psetex", "mset", "msetnx", "append", "setrange", "getset", "getdel",
      "getex", "incr", "incrby", "incrbyfloat", "decr", "decrby",
      // bitmaps and hyperloglog
      "setbit", "bitop", "bitfield", "pfadd", "pfmerge", "pfcount",
      // hashes
      "hset", "hsetnx", "hmset", "hdel", "hincrby", "hincrbyfloat",
      // lists
      "lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "linsert", "lset", "lrem", "ltrim", "lmove",
      "blmove", "rpoplpush", "brpoplpush", "blpop", "brpop", "lmpop", "blmpop",
      // sets
      "sadd", "srem", "spop", "smove", "sinterstore", "sunionstore", "sdiffstore",
      // sorted sets
      "zadd", "zincrby", "zrem", "zremrangebyscore", "zremrangebyrank", "zremrangebylex", "zpopmin",
      "zpopmax", "bzpopmin", "bzpopmax", "zmpop", "bzmpop", "zunionstore", "zinterstore", "zdiffstore",
      "zrangestore",
      // geo
      "geoadd", "georadius", "georadiusbymember", "geosearchstore",
      // streams
      "xadd", "xdel", "xtrim", "xgroup", "xack", "xclaim", "xautoclaim", "xsetid", "xreadgroup");

  private WriteCommands() {}

  /**
   * Tell whether a command writes data.
   *
   * @param lowerName the command name, lower-case
   * @return true for a write command
   */
  static boolean isWrite(String lowerName) {
    return NAMES.contains(lowerName);
  }
}
