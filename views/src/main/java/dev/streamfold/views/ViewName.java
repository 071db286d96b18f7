package dev.streamfold.views;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A materialized view's name within a tenant. Clients read its rows as {@code <view>:<key>}, so a
 * view name never contains ':'.
 *
 * @param tenant tenant name: lowercase letters, digits, '_' and '-', 1 to 64 characters
 * @param view view name: letters, digits, '_' and '-', 1 to 100 characters
 */
public record ViewName(String tenant, String view) {
  private static final Pattern TENANT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
  private static final Pattern VIEW = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0,99}");

  /**
   * Create a view name.
   *
   * @throws IllegalArgumentException if a part is malformed (the message quotes it and the rule)
   */
  public ViewName {
    checkTenant(tenant);
    Objects.requireNonNull(view, "view");
    if (!VIEW.matcher(view).matches()) {
      throw new IllegalArgumentException("invalid view name '" + view
          + "': use a letter or '_' then letters, digits, '_' or '-' (at most 100 characters)");
    }
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
    if (!TENANT.matcher(tenant).matches()) {
      throw new IllegalArgumentException("invalid tenant name '" + tenant
          + "': use lowercase letters, digits, '_' or '-' (at most 64 characters)");
    }
    return tenant;
  }

  @Override
  public String toString() {
    return tenant + "/" + view;
  }
}
