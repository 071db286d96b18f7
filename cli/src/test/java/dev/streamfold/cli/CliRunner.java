package dev.streamfold.cli;

import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The {@code streamfold} command line run in this JVM, as a test sees it: the exit code and what it printed on
 * stdout and stderr. {@link System#out} and {@link System#err} are swapped for buffers while it runs and put back
 * afterwards, whatever happens; the tests of a module run one after another in one JVM, so no other output is
 * caught meanwhile. picocli's own writers (usage, its error messages) print into the same buffers, in UTF-8.
 */
final class CliRunner {
  /**
   * One run of the command line.
   *
   * @param exitCode its exit code
   * @param out all it printed on stdout
   * @param err all it printed on stderr, progress bars included
   */
  record CliRun(int exitCode, String out, String err) {
    /** The lines of stderr as a terminal shows them: of a line that a progress bar redrew ({@code \r}), its last text. */
    Stream<String> errLines() {
      return err.lines().map(l -> l.substring(Math.max(0, l.lastIndexOf('\r') + 1)));
    }

    /** The {@code error: } lines of stderr, one a line (progress bars left out); empty if there are none. */
    String errors() {
      return errLines().filter(l -> l.startsWith("error: ")).collect(Collectors.joining("\n"));
    }

    /** The first line of stderr that is not blank, as a terminal shows it; empty if there is none. */
    String firstErrLine() {
      return errLines().filter(l -> !l.isBlank()).findFirst().orElse("");
    }
  }

  private final List<String> options;

  /**
   * A runner that adds {@code options} after the arguments of every run, such as {@code --server HOST:PORT} or
   * {@code --token TOKEN}; none for the command line as given.
   */
  CliRunner(String... options) {
    this.options = List.of(options);
  }

  /** Run {@code streamfold args...} followed by this runner's options, on a new {@link CommandLine}. */
  CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(options);
    return capture(() -> {
      CommandLine cli = StreamfoldCli.commandLine();
      PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
      PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
      cli.setOut(out);
      cli.setErr(err);
      try {
        return cli.execute(all.toArray(String[]::new));
      } finally {
        out.flush();
        err.flush();
      }
    });
  }

  /**
   * Run {@code body} with {@link System#out} and {@link System#err} captured, and put them back afterwards.
   *
   * @param body what to run; its result is the exit code
   */
  static CliRun capture(IntSupplier body) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      code = body.getAsInt();
    } finally {
      System.out.flush();
      System.err.flush();
      System.setOut(stdout);
      System.setErr(stderr);
    }
    return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
