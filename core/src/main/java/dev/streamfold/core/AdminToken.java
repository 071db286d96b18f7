package dev.streamfold.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;

/**
 * The server's admin token: generated at the first start into {@code <server data dir>/}{@value #FILE_NAME}
 * (created with mode 600, readable by the server's user only) and read from there on every later start, by
 * the local stack and the CLI too. The admin token acts for the tenants the server knows (registered,
 * configured, its default) and is the only credential that creates tenants. Delete the file and restart the server to replace it.
 */
public final class AdminToken {
  /** File name of the admin token in the server's data directory. */
  public static final String FILE_NAME = "admin-token";

  private AdminToken() {}

  /**
   * Return the file of a server data directory's admin token.
   *
   * @param serverDataDir the server's {@code --data-dir}
   * @return {@code <serverDataDir>/admin-token}
   */
  public static Path file(Path serverDataDir) {
    return serverDataDir.resolve(FILE_NAME);
  }

  /**
   * Read the admin token, creating it (mode 600) when there is none.
   *
   * @param serverDataDir the server's data directory (created when missing)
   * @return the token text
   * @throws UncheckedIOException if the file cannot be read or created
   * @throws IllegalStateException if the file does not hold a well-formed token (the message names the file)
   */
  public static String loadOrCreate(Path serverDataDir) {
    Path file = file(serverDataDir);
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(serverDataDir);
        String token = ApiToken.generate(new SecureRandom());
        Path tmp = Files.createTempFile(serverDataDir, FILE_NAME, ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tmp, token + "\n", StandardCharsets.US_ASCII);
        try {
          Files.createLink(file, tmp); // atomic: a concurrent start keeps the first token
        } catch (FileAlreadyExistsException raced) {
          // another process created it first
        } finally {
          Files.delete(tmp);
        }
      }
      return read(serverDataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the admin token " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Read the admin token.
   *
   * @param serverDataDir the server's data directory
   * @return the token text
   * @throws UncheckedIOException if the file cannot be read (e.g. the server never started there)
   * @throws IllegalStateException if the file does not hold a well-formed token
   */
  public static String read(Path serverDataDir) {
    Path file = file(serverDataDir);
    String token;
    try {
      token = Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the admin token " + file + " (has the server started there?)", e);
    }
    if (!ApiToken.wellFormed(token)) {
      throw new IllegalStateException("the admin token file " + file + " does not hold a token; delete it and"
          + " restart the server to generate a new one");
    }
    return token;
  }
}
