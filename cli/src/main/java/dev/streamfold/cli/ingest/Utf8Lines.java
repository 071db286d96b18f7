package dev.streamfold.cli.ingest;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads a UTF-8 text file line by line, decoding each line on its own: a line that is not UTF-8 fails
 * exactly when it is read, after every line before it was returned (a {@link java.io.BufferedReader} decodes
 * thousands of lines ahead, so its error came before rows that were fine, and those were never ingested).
 * Lines end at {@code \n}; a {@code \r} before it is dropped (CRLF files) and {@link #lastBreak} says which it was. A UTF-8 byte order mark at the start
 * of the file is dropped.
 */
final class Utf8Lines implements Closeable {
  private final Path file;
  private final InputStream in;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;
  private byte[] line = new byte[256];
  private long number;
  private String lastBreak = "";

  /**
   * Open a file.
   *
   * @param file the file
   * @throws IOException if it cannot be opened
   */
  Utf8Lines(Path file) throws IOException {
    this.file = file;
    this.in = Files.newInputStream(file);
  }

  /**
   * Read the next line, without its line break.
   *
   * @return the line, or null at the end of the file
   * @throws IOException if the file cannot be read, or the line is not UTF-8 text (the message names the file and
   *     the 1-based line; a file starting with a UTF-16 byte order mark is named UTF-16)
   */
  String readLine() throws IOException {
    int length = 0;
    boolean any = false;
    while (true) {
      if (position == limit) {
        limit = in.read(buffer, 0, buffer.length);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          if (!any) {
            return null;
          }
          break;
        }
      }
      any = true;
      int start = position;
      while (position < limit && buffer[position] != '\n') {
        position++;
      }
      int chunk = position - start;
      if (length + chunk > line.length) {
        line = Arrays.copyOf(line, Math.max(line.length * 2, length + chunk));
      }
      System.arraycopy(buffer, start, line, length, chunk);
      length += chunk;
      if (position < limit) {
        position++; // the \n
        lastBreak = "\n";
        break;
      }
      lastBreak = ""; // the end of the file, unless a \n follows in the next buffer
    }
    number++;
    if (length > 0 && line[length - 1] == '\r') {
      length--;
      lastBreak = lastBreak.isEmpty() ? "" : "\r\n";
    }
    int offset = number == 1 && length >= 3 && line[0] == (byte) 0xEF && line[1] == (byte) 0xBB
        && line[2] == (byte) 0xBF ? 3 : 0;
    if (number == 1 && length >= 2 && (line[0] == (byte) 0xFF && line[1] == (byte) 0xFE
        || line[0] == (byte) 0xFE && line[1] == (byte) 0xFF)) {
      throw new IOException(file + " line 1: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8;"
          + " convert the file to UTF-8");
    }
    try {
      return decoder.decode(ByteBuffer.wrap(line, offset, length - offset)).toString();
    } catch (CharacterCodingException e) {
      throw new IOException(file + " line " + number + ": not UTF-8 text (a malformed byte sequence); convert the"
          + " file to UTF-8", e);
    }
  }

  /**
   * The line break that ended the line read last, as it is in the file (a quoted CSV field keeps it).
   *
   * @return "\r\n", "\n", or "" when the line ended at the end of the file
   */
  String lastBreak() {
    return lastBreak;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
