package dev.streamfold.cli;

import java.util.List;
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
        // picocli quotes the arguments it did not match, a --token's value among them: print its answer without it
        CommandLine failed = error.getCommandLine();
        java.io.PrintWriter err = failed.getErr();
        java.io.StringWriter answer = new java.io.StringWriter();
        failed.setErr(new java.io.PrintWriter(answer, true));
        int code;
        try {
          code = usage.handleParseException(error, args);
        } finally {
          failed.setErr(err);
        }
        err.print(withoutTokens(answer.toString(), args));
        err.flush();
        return code;
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

  /** What a {@code --token} value given on the command line is replaced with in a usage error. */
  static final String REDACTED = "<token not shown>";

  /**
   * Remove the values of {@code --token} from a usage error's text, where picocli quotes the arguments it did not
   * match ({@code Unmatched arguments from index 1: 'nope', '--token', 'sf_...'}).
   *
   * @param text the usage error
   * @param args the command line
   * @return the text with each {@code --token} value, quoted or after {@code --token=}, replaced by
   *     {@value #REDACTED}
   */
  static String withoutTokens(String text, String[] args) {
    String result = text;
    for (int i = 0; i < args.length; i++) {
      String value = args[i].equals("--token") && i + 1 < args.length ? args[i + 1]
          : args[i].startsWith("--token=") ? args[i].substring("--token=".length()) : null;
      if (value != null && !value.isEmpty()) {
        result = result.replace("--token=" + value, "--token=" + REDACTED)
            .replace("'" + value + "'", "'" + REDACTED + "'");
      }
    }
    return result;
  }

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
    // only when the first argument not matched is such an option: `streamfold nope --server ...` is an unknown
    // command, not a misplaced --server
    List<String> arguments = unmatched.getUnmatched();
    String option = arguments.isEmpty() ? "" : arguments.get(0).split("=", 2)[0];
    return COMMAND_OPTIONS.contains(option) ? option : null;
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
