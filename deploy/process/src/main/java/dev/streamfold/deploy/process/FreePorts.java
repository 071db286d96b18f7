package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Free TCP ports on loopback, chosen by the kernel (machines are shared: never assume a standard port). */
public final class FreePorts {
  private FreePorts() {}

  /**
   * Return a TCP port on 127.0.0.1 that was free a moment ago.
   *
   * @return a port number in 1..65535
   * @throws UncheckedIOException if no port can be bound
   */
  public static int pick() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind any free port on 127.0.0.1", e);
    }
  }

  /**
   * Tell whether a TCP port on 127.0.0.1 can be bound now.
   *
   * @param port port number, 1..65535
   * @return true when the port is free
   */
  public static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
