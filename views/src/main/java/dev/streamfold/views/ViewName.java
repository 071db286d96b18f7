package dev.streamfold.views;

import dev.streamfold.core.ClientText;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A materialized view's (or virtual state's) name within a tenant. Clients read its rows as
 * {@code <view>:<key>}. A plain name never contains ':'. The one exception is the documented
 * position form of a virtual state, {@code <view>@<message ID>} (e.g. {@code delays@12:5:-1:4}): the
 * state of {@code view} replayed up to and including that message ID; its four colon-separated
 * message ID fields are part of the name, so a client key {@code delays@12:5:-1:4:LAS} is row
 * {@code LAS} of it.
 *
 * @param tenant tenant name: lowercase letters, digits, '_' and '-', 1 to 64 characters
 * @param view view name: a letter or '_', then letters, digits, '_' and '-', 1 to 100 characters;
 *     optionally followed by {@code @ledgerId:entryId:partition:batchIndex}
 */
public record ViewName(String tenant, String view) {
  static final Pattern TENANT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
  static final Pattern VIEW =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0,99}(@-?[0-9]{1,19}:-?[0-9]{1,19}:-?[0-9]{1,10}:-?[0-9]{1,10})?");
  /** A client key that starts with a position-form name: {@code view@l:e:p:b:rowKey}. */
  private static final Pattern POSITION_KEY =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_-]{0,99}@-?[0-9]{1,19}:-?[0-9]{1,19}:-?[0-9]{1,10}:-?[0-9]{1,10}):(.*)",
          Pattern.DOTALL);

  /**
   * Create a view name.
   *
   * @throws IllegalArgumentException if a part is malformed (the message quotes it and the rule)
   */
  public ViewName {
    checkTenant(tenant);
    Objects.requireNonNull(view, "view");
    if (!isPlainView(view) && !VIEW.matcher(view).matches()) {
      throw new IllegalArgumentException("invalid view name " + ClientText.quote(view)
          + ": use a letter or '_' then letters, digits, '_' or '-' (at most 100 characters), optionally"
          + " followed by @<message ID> (ledgerId:entryId:partition:batchIndex)");
    }
  }

  /**
   * Split a client key {@code <view>:<rowKey>} into its view name and row key: at the first ':', or
   * after the message ID of a position-form name ({@code <view>@l:e:p:b:<rowKey>}).
   *
   * @param key the key as a client sent it
   * @return {view, rowKey}, or null when the key has no ':' after a non-empty view part
   */
  public static String[] splitKey(String key) {
    int at = key.indexOf('@');
    int colon = key.indexOf(':');
    if (at > 0 && (colon < 0 || at < colon)) {
      Matcher m = POSITION_KEY.matcher(key);
      if (m.matches()) {
        return new String[] {m.group(1), m.group(2)};
      }
    }
    if (colon <= 0) {
      return null;
    }
    return new String[] {key.substring(0, colon), key.substring(colon + 1)};
  }

  /** True for the position form {@code <view>@<message ID>} of a virtual state name. */
  public boolean isPositionForm() {
    return view.indexOf('@') >= 0;
  }

  /**
   * Check a tenant name.
   *
   * @param tenant the name
   * @return the name
   * @throws IllegalArgumentException if malformed (the message quotes it and the rule)
   */
  public static String checkTenant(String tenant) {
    Objects.requireNonNull(tenant, "tenant");
    if (!isTenant(tenant)) {
      throw new IllegalArgumentException("invalid tenant name " + ClientText.quote(tenant)
          + ": use lowercase letters, digits, '_' or '-' (at most 64 characters)");
    }
    return tenant;
  }

  /** {@link #TENANT} without a regex (names are checked on every read; the serving profile showed the regex). */
  private static boolean isTenant(String tenant) {
    int n = tenant.length();
    if (n == 0 || n > 64 || tenant.charAt(0) == '_' || tenant.charAt(0) == '-') {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = tenant.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** {@link #VIEW} without its {@code @<message ID>} suffix, without a regex; false means "ask the regex". */
  private static boolean isPlainView(String view) {
    int n = view.length();
    if (n == 0 || n > 100) {
      return false;
    }
    char first = view.charAt(0);
    if (!(first >= 'A' && first <= 'Z' || first >= 'a' && first <= 'z' || first == '_')) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = view.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return tenant + "/" + view;
  }
}
