package dev.streamfold.deploy.local.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The helper that {@link LocalStack#up()} runs in a new session ({@code setsid}): it starts the stack's
 * processes as its own children and exits when they are ready, so they outlive the calling command and
 * never see its terminal's Ctrl-C or hang-up. Exit code 0 when the stack runs, 1 otherwise (the cause
 * is printed on stderr).
 */
public final class LocalStackLauncher {
  private LocalStackLauncher() {}

  /**
   * Start the local stack described by the arguments of {@link #arguments(StackOptions)}.
   *
   * @param args {@code --data-dir DIR --broker-port N --web-port N --bookie-port N --redis-port N
   *     --grpc-port N --resp-port N --s3-port N --server-start-timeout-s N --offload-deletion-lag-ms N}
   */
  public static void main(String[] args) {
    int code;
    try {
      StackOptions options = parse(args);
      new LocalStack(options.withDetached(false), System.out).upHere();
      code = 0;
    } catch (RuntimeException e) {
      System.out.flush();
      System.err.println("error: " + e.getMessage());
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  /**
   * Render options as this launcher's arguments.
   *
   * @param o the options
   * @return the arguments
   */
  static List<String> arguments(StackOptions o) {
    return List.of("--data-dir", o.dataDir().toString(),
        "--broker-port", Integer.toString(o.brokerPort()),
        "--web-port", Integer.toString(o.webPort()),
        "--bookie-port", Integer.toString(o.bookiePort()),
        "--redis-port", Integer.toString(o.redisPort()),
        "--grpc-port", Integer.toString(o.grpcPort()),
        "--resp-port", Integer.toString(o.respPort()),
        "--s3-port", Integer.toString(o.s3Port()),
        "--server-start-timeout-s", Long.toString(o.serverStartTimeout().toSeconds()),
        "--offload-deletion-lag-ms", Long.toString(o.offloadDeletionLag().toMillis()));
  }

  /**
   * Parse the arguments of {@link #arguments(StackOptions)}.
   *
   * @param args the arguments
   * @return the options (detached is false: this is the helper)
   * @throws IllegalArgumentException if an option is unknown, lacks its value, or a number is malformed
   */
  static StackOptions parse(String[] args) {
    Path dataDir = null;
    int[] ports = new int[7];
    long timeoutS = StackOptions.DEFAULT_SERVER_START_TIMEOUT.toSeconds();
    long deletionLagMs = StackOptions.DEFAULT_OFFLOAD_DELETION_LAG.toMillis();
    List<String> names = List.of("--broker-port", "--web-port", "--bookie-port", "--redis-port", "--grpc-port",
        "--resp-port", "--s3-port");
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      String name = args[i];
      String value = args[i + 1];
      if (name.equals("--data-dir")) {
        dataDir = Path.of(value);
      } else if (name.equals("--server-start-timeout-s")) {
        timeoutS = Long.parseLong(value);
      } else if (name.equals("--offload-deletion-lag-ms")) {
        deletionLagMs = Long.parseLong(value);
      } else if (names.contains(name)) {
        ports[names.indexOf(name)] = Integer.parseInt(value);
      } else {
        throw new IllegalArgumentException("unknown option " + name);
      }
    }
    if (dataDir == null) {
      throw new IllegalArgumentException("--data-dir is required");
    }
    return StackOptions.builder(dataDir).brokerPort(ports[0]).webPort(ports[1]).bookiePort(ports[2])
        .redisPort(ports[3]).grpcPort(ports[4]).respPort(ports[5]).serverStartTimeout(Duration.ofSeconds(timeoutS))
        .detached(false).s3Port(ports[6]).offloadDeletionLag(Duration.ofMillis(deletionLagMs)).build();
  }
}
