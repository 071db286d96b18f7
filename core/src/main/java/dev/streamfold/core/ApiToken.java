package dev.streamfold.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * API tokens: {@value #PREFIX} followed by 256 random bits in URL-safe Base64 (43 characters). The prefix
 * only makes tokens recognisable (e.g. by secret scanners); it carries no tenant name, so a token says
 * nothing about whose it is. Tokens are stored as their SHA-256 hash; the public id of a token is the
 * first {@value #ID_HEX_DIGITS} hex digits of that hash.
 */
public final class ApiToken {
  /** Prefix of every token. */
  public static final String PREFIX = "sf_";
  /** Random bits of a token. */
  public static final int RANDOM_BITS = 256;
  /** Hex digits of the hash that form a token's public id. */
  public static final int ID_HEX_DIGITS = 12;
  private static final Pattern FORMAT = Pattern.compile("sf_[A-Za-z0-9_-]{43}");

  private ApiToken() {}

  /**
   * Generate a new token.
   *
   * @param random the source of randomness (a {@link SecureRandom})
   * @return the token text, e.g. {@code sf_3q2-...} (46 characters)
   */
  public static String generate(SecureRandom random) {
    byte[] bytes = new byte[RANDOM_BITS / 8];
    random.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Check whether text has the form of a token (it may still be unknown).
   *
   * @param text any text
   * @return true when it is {@value #PREFIX} and 43 URL-safe Base64 characters
   */
  public static boolean wellFormed(String text) {
    return text != null && FORMAT.matcher(text).matches();
  }

  /**
   * Hash a token for storage and lookup.
   *
   * @param token the token text
   * @return the SHA-256 of its UTF-8 bytes, 64 lowercase hex digits
   */
  public static String hash(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Return the public id of a token from its hash.
   *
   * @param hash the token's {@link #hash}
   * @return its first {@value #ID_HEX_DIGITS} hex digits
   */
  public static String id(String hash) {
    return hash.substring(0, ID_HEX_DIGITS);
  }
}
