package dev.streamfold.views;

/**
 * The Redis layout of views. Every key of one view version shares the hash tag
 * {@code {tenant:view:version}}, so on Redis Cluster a version lives in one slot and its commits stay
 * single-slot MULTI/EXEC transactions.
 *
 * <pre>
 * sf:&lt;tenant&gt;:views                         SET   view names of the tenant
 * sf:{&lt;tenant&gt;:&lt;view&gt;}:view                  HASH  served_version, columns, key_columns
 * sf:{&lt;tenant&gt;:&lt;view&gt;:&lt;n&gt;}:meta               HASH  phase, events_applied, position, ... of version n
 * sf:{&lt;tenant&gt;:&lt;view&gt;:&lt;n&gt;}:keys               SET   row keys of version n
 * sf:{&lt;tenant&gt;:&lt;view&gt;:&lt;n&gt;}:r:&lt;row key&gt;        HASH  one row: column -&gt; value text
 * </pre>
 */
final class RedisKeys {
  static final String ROW_INFIX = "}:r:";

  private RedisKeys() {}

  static String tenantViews(String tenant) {
    return "sf:" + tenant + ":views";
  }

  static String view(ViewName name) {
    return view(name.tenant(), name.view());
  }

  static String versionPrefix(ViewName name, int version) {
    return versionPrefix(name.tenant(), name.view(), Integer.toString(version));
  }

  /** Glob matching every key of one version: its metadata, its row-key set and its rows. */
  static String versionPattern(ViewName name, int version) {
    return versionPrefix(name, version) + "}:*";
  }

  /**
   * Glob matching every key of every version of a view. A version's tag is {@code {tenant:view:<digits>}},
   * so the keys of a position-form name {@code view@...}, another view, do not match.
   */
  static String allVersionsPattern(ViewName name) {
    return versionPrefix(name.tenant(), name.view(), "[0-9]*");
  }

  static String meta(ViewName name, int version) {
    return versionPrefix(name, version) + "}:meta";
  }

  static String keys(ViewName name, int version) {
    return versionPrefix(name, version) + "}:keys";
  }

  static String row(ViewName name, int version, String rowKey) {
    return versionPrefix(name, version) + ROW_INFIX + rowKey;
  }

  /** True when {@code redisKey} is a row key ({@link #row}) of any view version. */
  static boolean isRow(String redisKey) {
    return redisKey.startsWith("sf:{") && redisKey.contains(ROW_INFIX);
  }

  /** Glob matching every row key of every view version of a tenant. */
  static String allRowsPattern(String tenant) {
    return "sf:{" + tenant + ":*" + ROW_INFIX + "*";
  }

  /**
   * Parse a row key of {@link #allRowsPattern}.
   *
   * @return {view, version, rowKey}, or null when the key is not a row key of that tenant
   */
  static String[] parseRow(String tenant, String redisKey) {
    String head = "sf:{" + tenant + ":";
    if (!redisKey.startsWith(head)) {
      return null;
    }
    int infix = redisKey.indexOf(ROW_INFIX, head.length());
    if (infix < 0) {
      return null;
    }
    String tag = redisKey.substring(head.length(), infix);
    int colon = tag.lastIndexOf(':');
    if (colon <= 0) {
      return null;
    }
    return new String[] {tag.substring(0, colon), tag.substring(colon + 1),
        redisKey.substring(infix + ROW_INFIX.length())};
  }

  /**
   * The view hash ({@link #view}) as a Lua expression, for a script that learns the view's name as it runs.
   *
   * @param tenant a Lua expression of the tenant, e.g. {@code ARGV[1]}
   * @param view a Lua expression of the view
   * @return a Lua string expression, e.g. {@code 'sf:{' .. ARGV[1] .. ':' .. src .. '}:view'}
   */
  static String viewLua(String tenant, String view) {
    return quoted(view(spliced(tenant), spliced(view)));
  }

  /**
   * The rows' prefix of a version ({@link #row} without the row key) as a Lua expression, for a script that
   * learns the view and the version as it runs.
   *
   * @param tenant a Lua expression of the tenant
   * @param view a Lua expression of the view
   * @param version a Lua expression of the version
   * @return a Lua string expression, e.g. {@code 'sf:{' .. ARGV[1] .. ':' .. src .. ':' .. v .. '}:r:'}
   */
  static String rowPrefixLua(String tenant, String view, String version) {
    return quoted(versionPrefix(spliced(tenant), spliced(view), spliced(version)) + ROW_INFIX);
  }

  private static String view(String tenant, String view) {
    return "sf:{" + tenant + ":" + view + "}:view";
  }

  private static String versionPrefix(String tenant, String view, String version) {
    return "sf:{" + tenant + ":" + view + ":" + version;
  }

  /** A Lua expression as a part of a quoted Lua string: it closes the quote, concatenates, reopens it. */
  private static String spliced(String luaExpression) {
    return "' .. " + luaExpression + " .. '";
  }

  /** Text of the layout (no quote in it) as a Lua string literal. */
  private static String quoted(String text) {
    return "'" + text + "'";
  }
}
