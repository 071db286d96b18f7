package dev.streamfold.testkit.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A raw RESP client over a socket for tests: writes requests as arrays of bulk strings and reads
 * exactly one reply (RESP2 or RESP3 framing) as its raw text, so replies can be compared byte for
 * byte. Reads time out after 10 s.
 */
public final class RawRespClient implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /**
   * Connect to a RESP server on the loopback address.
   *
   * @param port the server's TCP port
   * @throws UncheckedIOException if the connection fails
   */
  public RawRespClient(int port) {
    try {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(10_000);
      in = new BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Encode a request as a RESP array of bulk strings. */
  public static byte[] encode(String... args) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      buf.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
      buf.writeBytes(bytes);
      buf.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    return buf.toByteArray();
  }

  /** Send raw bytes. */
  public void send(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Send one request and return its raw reply. */
  public String call(String... args) {
    send(encode(args));
    return readReply();
  }

  /** Read one complete reply, nested elements included, as text. */
  public String readReply() {
    ByteArrayOutputStream reply = new ByteArrayOutputStream();
    try {
      readInto(reply);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return reply.toString(StandardCharsets.UTF_8);
  }

  /**
   * Tell whether the server closed the connection: the next read returns end of stream.
   *
   * @return true at end of stream, false if a byte arrives
   */
  public boolean closedByServer() {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return true; // reset by peer
    }
  }

  private void readInto(ByteArrayOutputStream reply) throws IOException {
    String line = readLine();
    reply.writeBytes((line + "\r\n").getBytes(StandardCharsets.UTF_8));
    char type = line.charAt(0);
    String rest = line.substring(1);
    switch (type) {
      case '+', '-', ':', '_', '#', ',', '(' -> { }
      case '$', '=', '!' -> {
        int length = Integer.parseInt(rest);
        if (length >= 0) {
          reply.writeBytes(readExactly(length + 2));
        }
      }
      case '*', '~', '>' -> {
        int count = Integer.parseInt(rest);
        for (int i = 0; i < count; i++) {
          readInto(reply);
        }
      }
      case '%', '|' -> {
        int count = Integer.parseInt(rest);
        for (int i = 0; i < 2 * count; i++) {
          readInto(reply);
        }
      }
      default -> throw new IOException("not a RESP reply line: " + line);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int previous = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed; read so far: " + line.toString(StandardCharsets.UTF_8));
      }
      if (previous == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      line.write(b);
      previous = b;
    }
  }

  private byte[] readExactly(int n) throws IOException {
    byte[] bytes = in.readNBytes(n);
    if (bytes.length < n) {
      throw new EOFException("connection closed inside a bulk string");
    }
    return bytes;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
