package dev.streamfold.deploy.local.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * The credentials of the local stack's S3 endpoint, made up once per data directory and kept in
 * {@code <data dir>/s3/credentials} (mode 600) as {@code ACCESS_KEY_ID=…} and {@code ACCESS_KEY_SECRET=…}
 * lines: the same names the broker reads from its environment. s3proxy and the broker get them; they
 * never appear in a command line, the broker's config file or {@link #toString()}.
 *
 * @param accessKeyId the access key id (20 characters)
 * @param secretAccessKey the secret (40 characters)
 */
record S3Credentials(String accessKeyId, String secretAccessKey) {
  /** Name of the file under the S3 data directory. */
  static final String FILE_NAME = "credentials";
  static final String KEY_ID = "ACCESS_KEY_ID";
  static final String KEY_SECRET = "ACCESS_KEY_SECRET";

  private static final String ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  private static final String SECRET_ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

  S3Credentials {
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
  }

  /**
   * Read the credentials file, or make up credentials and write it (mode 600) when it does not exist.
   * An existing file's mode is set to 600 again.
   *
   * @param file the file, e.g. {@code <data dir>/s3/credentials}
   * @return the credentials
   * @throws UncheckedIOException if the file cannot be read or written, or lacks a key (the message names
   *     the file and the key)
   */
  static S3Credentials loadOrCreate(Path file) {
    try {
      Properties p = new Properties();
      try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(in);
      }
      Files.setPosixFilePermissions(file, OWNER_ONLY);
      String id = p.getProperty(KEY_ID, "").strip();
      String secret = p.getProperty(KEY_SECRET, "").strip();
      if (id.isEmpty() || secret.isEmpty()) {
        throw new UncheckedIOException(new IOException("the S3 credentials file " + file + " lacks "
            + (id.isEmpty() ? KEY_ID : KEY_SECRET) + "; delete it to make up new credentials (objects already in"
            + " the bucket stay readable: the local S3 endpoint accepts whatever credentials it is started with)"));
      }
      return new S3Credentials(id, secret);
    } catch (NoSuchFileException missing) {
      return create(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the S3 credentials file " + file, e);
    }
  }

  private static S3Credentials create(Path file) {
    SecureRandom random = new SecureRandom();
    S3Credentials made = new S3Credentials(randomText(random, ID_ALPHABET, 20), randomText(random, SECRET_ALPHABET, 40));
    Properties p = new Properties();
    p.setProperty(KEY_ID, made.accessKeyId);
    p.setProperty(KEY_SECRET, made.secretAccessKey);
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        p.store(out, "Credentials of the local stack's S3 endpoint (s3proxy), made up once for this data directory");
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      return made;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the S3 credentials file " + file, e);
    }
  }

  private static String randomText(SecureRandom random, String alphabet, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }

  /** The access key id only. */
  @Override
  public String toString() {
    return "S3Credentials[accessKeyId=" + accessKeyId + ", secretAccessKey=****]";
  }
}
