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
    CommandLine.IParameterExceptionHandler usage = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler((error, args) -> {
      String misplaced = misplacedOption(error);
      if (misplaced == null) {
        return usage.handleParseException(error, args);
      }
      error.getCommandLine().getErr().println("error: " + misplaced + " goes after the command's name, e.g."
          + " `streamfold transform status NAME " + misplaced + " ...`: each command takes its own options");
      return error.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
    });
    return cli;
  }

  /** Options every command takes (the server mixin), which picocli refuses before the command's name. */
  private static final java.util.Set<String> COMMAND_OPTIONS =
      java.util.Set.of("--token", "--tenant", "--server", "--data-dir", "--resp");

  /**
   * Tell whether a parse error is a command's option given before the command's name ({@code streamfold --token T
   * transform status x}), which picocli reports as an unknown option with the whole usage.
   *
   * @return the option, or null for any other error
   */
  static String misplacedOption(CommandLine.ParameterException error) {
    if (!(error instanceof CommandLine.UnmatchedArgumentException unmatched)
        || error.getCommandLine().getParent() != null) {
      return null;
    }
    for (String argument : unmatched.getUnmatched()) {
      String option = argument.split("=", 2)[0];
      if (COMMAND_OPTIONS.contains(option)) {
        return option;
      }
    }
    return null;
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
