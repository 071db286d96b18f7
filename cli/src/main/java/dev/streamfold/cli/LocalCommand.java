package dev.streamfold.cli;

import dev.streamfold.deploy.local.stack.LocalStack;
import dev.streamfold.deploy.local.stack.StackOptions;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code streamfold local up|down|status}: the local stack. */
@Command(name = "local", mixinStandardHelpOptions = true, description = "Start, stop and inspect the local stack (Pulsar standalone, redis-server"
    + " and the Streamfold server, on loopback, with data under one directory).",
    subcommands = {LocalCommand.Up.class, LocalCommand.Down.class, LocalCommand.Status.class})
final class LocalCommand {

  @Command(name = "up", description = "Start the local stack (does nothing when it already runs). Ports are free"
      + " ones, the previous run's when still free.")
  static final class Up implements Callable<Integer> {
    @Mixin
    DataDirOption dataDir = new DataDirOption();

    @Option(names = "--pulsar-port", paramLabel = "PORT", description = "Pulsar binary protocol port (default: free).")
    int brokerPort;

    @Option(names = "--pulsar-web-port", paramLabel = "PORT", description = "Pulsar admin REST port (default: free).")
    int webPort;

    @Option(names = "--bookie-port", paramLabel = "PORT", description = "BookKeeper bookie port (default: free).")
    int bookiePort;

    @Option(names = "--redis-port", paramLabel = "PORT", description = "redis-server port (default: free).")
    int redisPort;

    @Option(names = "--grpc-port", paramLabel = "PORT", description = "Streamfold gRPC port (default: free).")
    int grpcPort;

    @Option(names = "--resp-port", paramLabel = "PORT",
        description = "query-service RESP port, for redis-cli (default: free).")
    int respPort;

    @Option(names = "--server-start-timeout", paramLabel = "SECONDS", defaultValue = "300",
        description = "Longest wait for the Streamfold server to get ready (default: ${DEFAULT-VALUE}).")
    long serverStartTimeoutS;

    @Override
    public Integer call() {
      LocalStack stack = new LocalStack(options(), System.out);
      stack.up();
      System.out.print(stack.status().render());
      return 0;
    }

    StackOptions options() {
      return StackOptions.builder(dataDir.resolve()).brokerPort(brokerPort).webPort(webPort).bookiePort(bookiePort)
          .redisPort(redisPort).grpcPort(grpcPort).respPort(respPort).serverStartTimeout(Duration.ofSeconds(serverStartTimeoutS))
          .detached(true).build();
    }
  }

  @Command(name = "down", description = "Stop the local stack: the server, then Pulsar, then Redis (data is kept).")
  static final class Down implements Callable<Integer> {
    @Mixin
    DataDirOption dataDir = new DataDirOption();

    @Override
    public Integer call() {
      dataDir.stack().down();
      return 0;
    }
  }

  @Command(name = "status", description = "Show every process of the local stack: running or not, pid, ports,"
      + " data directory, log file. Exit code 3 when not everything runs.")
  static final class Status implements Callable<Integer> {
    /** Exit code when the stack does not fully run. */
    static final int EXIT_NOT_RUNNING = 3;

    @Mixin
    DataDirOption dataDir = new DataDirOption();

    @Override
    public Integer call() {
      var status = dataDir.stack().status();
      System.out.print(status.render());
      return status.allRunning() ? 0 : EXIT_NOT_RUNNING;
    }
  }
}
