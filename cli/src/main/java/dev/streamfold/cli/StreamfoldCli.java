package dev.streamfold.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code streamfold} command line: the local stack, the demo, streams, ingestion, transformations,
 * views, replay into virtual states, rollback and resume, training sets. Errors print as one line ({@code error: ...}) with exit code 1; usage errors exit with 2.
 */
// scope INHERIT: every subcommand gets --help and --version (before, most answered --help with a usage error).
@Command(name = "streamfold", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT,
    version = "streamfold 0.1.0-SNAPSHOT",
    description = "Streamfold: the ledger is the truth; every view is a fold of a ledger prefix.",
    subcommands = {DemoCommand.class, LocalCommand.class, StreamCommand.class, IngestCommand.class,
        TransformCommand.class, ViewCommand.class, ReplayCommand.class, RollbackCommand.class,
        RollbackCommand.Resume.class, TrainingSetCommand.class, LedgerCommand.class, TenantCommand.class, StreamfoldCli.TestCommand.class, CommandLine.HelpCommand.class})
public final class StreamfoldCli implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /**
   * Run the command line and exit with its exit code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    int code = commandLine().execute(args);
    System.out.flush();
    System.exit(code);
  }

  /** The configured command line (exception handler, case-insensitive enum values such as --format csv). */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new StreamfoldCli());
    cli.setExecutionExceptionHandler(new ErrorHandler());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setUsageHelpAutoWidth(true);
    return cli;
  }

  /** {@code streamfold test}: handled by the {@code ./streamfold} script; here only a pointer to it. */
  @Command(name = "test", description = "Run all unit and integration tests (mvn -B verify), after checking"
      + " prerequisites. Handled by the ./streamfold script in the source tree.")
  static final class TestCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      throw new CliException("run the tests with the script in the source tree: ./streamfold test");
    }
  }
}
