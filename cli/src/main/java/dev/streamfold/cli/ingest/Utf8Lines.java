package dev.streamfold.cli.ingest;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the line of a text file that is not UTF-8 (a reader decodes ahead, so its position is not the line's). */
final class Utf8Lines {
  private Utf8Lines() {}

  /**
   * Find the first line that is not valid UTF-8.
   *
   * @param file the file
   * @return its 1-based number, or -1 if every line is valid
   * @throws IOException if the file cannot be read
   */
  static long firstMalformedLine(Path file) throws IOException {
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      long number = 1;
      for (int b = in.read(); ; b = in.read()) {
        if (b < 0 || b == '\n') {
          try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line.toByteArray()));
          } catch (CharacterCodingException e) {
            return number;
          }
          if (b < 0) {
            return -1;
          }
          line.reset();
          number++;
        } else {
          line.write(b);
        }
      }
    }
  }

  /**
   * Describe a file that is not UTF-8 text.
   *
   * @param file the file
   * @param cause the decoder's error
   * @return an IOException naming the file and the first malformed line
   */
  static IOException notUtf8(Path file, CharacterCodingException cause) {
    long line;
    try {
      line = firstMalformedLine(file);
    } catch (IOException e) {
      line = -1;
    }
    return new IOException(file + (line > 0 ? " line " + line : "") + ": not UTF-8 text (a malformed byte sequence);"
        + " convert the file to UTF-8", cause);
  }
}
