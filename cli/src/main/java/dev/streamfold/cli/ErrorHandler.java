package dev.streamfold.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.cli.ingest.InputException;
import dev.streamfold.deploy.local.stack.LocalStackException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Prints a failed command's error as one clear line (gRPC errors as status code and description) and
 * returns exit code 1. A command asked for JSON ({@code --json}) also prints the error on standard output as one JSON
 * object, {@code {"error":{"code":"INVALID_ARGUMENT","message":"..."}}} (the gRPC status code, or
 * {@code INVALID_ARGUMENT} for what the CLI refuses itself, {@code UNKNOWN} else), so that a script reading its output
 * reads an error too. Stack traces only with {@code STREAMFOLD_DEBUG=1}.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
  /** Exit code of a command that failed. */
  static final int EXIT_FAILURE = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
    if (asksForJson(parseResult)) {
      PrintWriter out = commandLine.getOut();
      out.println(jsonError(ex));
      out.flush();
    }
    System.out.flush();
    PrintWriter err = commandLine.getErr();
    err.println("error: " + oneLine(describe(ex)));
    if (debug()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return EXIT_FAILURE;
  }

  /** True when the command that ran (the innermost subcommand) was given {@code --json}. */
  private static boolean asksForJson(ParseResult parseResult) {
    ParseResult command = parseResult;
    while (command.subcommand() != null) {
      command = command.subcommand();
    }
    return command.hasMatchedOption("--json") && Boolean.TRUE.equals(command.matchedOptionValue("--json", false));
  }

  /**
   * An error as one JSON object: {@code {"error":{"code":...,"message":...}}}.
   *
   * @param ex the error
   * @return the object's text, one line
   */
  static String jsonError(Exception ex) {
    String code;
    String message;
    if (ex instanceof StatusRuntimeException s) {
      code = s.getStatus().getCode().name();
      message = describe(s.getStatus()).substring(code.length() + 2);
    } else {
      code = ex instanceof CliException || ex instanceof InputException || ex instanceof IllegalArgumentException
          ? "INVALID_ARGUMENT" : "UNKNOWN";
      message = describe(ex);
    }
    ObjectNode error = JSON.createObjectNode();
    error.putObject("error").put("code", code).put("message", message);
    return error.toString();
  }

  /**
   * Write the control characters of an error's text as <code>&#92;u000A</code> escapes (as the server quotes client
   * text), so that the error stays one line: a file or name holding a line break, a carriage return or a NUL is shown
   * as it is, without breaking the line or the terminal.
   *
   * @param text the text
   * @return the text with every character below U+0020 and U+007F escaped
   */
  static String oneLine(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        out.append(String.format("\\u%04X", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  static boolean debug() {
    String value = System.getenv("STREAMFOLD_DEBUG");
    return value != null && !value.isEmpty() && !value.equals("0");
  }

  /**
   * Describe an error in one line.
   *
   * @param t the error
   * @return e.g. {@code NOT_FOUND: stream 'x' does not exist in tenant 'demo'}
   */
  static String describe(Throwable t) {
    if (t instanceof StatusRuntimeException s) {
      return describe(s.getStatus());
    }
    if (t instanceof CliException || t instanceof InputException || t instanceof LocalStackException
        || t instanceof IllegalArgumentException || t instanceof IllegalStateException) {
      return t.getMessage();
    }
    if (t instanceof NoSuchFileException e) {
      return (e.getReason() != null && !e.getReason().isEmpty() ? e.getReason() : "no such file") + ": " + e.getFile();
    }
    if (t instanceof UncheckedIOException e && e.getCause() != null) {
      return e.getMessage() + (e.getCause().getMessage() == null ? "" : " (" + e.getCause().getMessage() + ")");
    }
    if (t instanceof IOException) {
      return t.getMessage() == null ? t.toString() : t.getMessage();
    }
    if (t instanceof RespException.NotConnected) {
      String root = rootMessage(t);
      if (root != null && root.startsWith("WRONGPASS")) {
        // reached, and refused: the token does not act for the --tenant named (it defaults to demo)
        return "the query-service refused the token: " + root + " (a tenant's token acts only for its tenant: name"
            + " it with --tenant or STREAMFOLD_TENANT; the admin token acts for registered tenants)";
      }
      return "cannot reach the query-service over RESP: " + root
          + " (is the local stack running? `streamfold local status`)";
    }
    if (t instanceof RespException.ErrorReply) {
      return "query-service: " + t.getMessage();
    }
    if (t instanceof RespException) {
      return "query-service: " + rootMessage(t);
    }
    return t + (debug() ? "" : " (set STREAMFOLD_DEBUG=1 for the stack trace)");
  }

  /** Descriptions of UNAVAILABLE that the server gives, naming the store behind it that failed. */
  private static final java.util.regex.Pattern DEPENDENCY =
      java.util.regex.Pattern.compile("\\(Redis\\)|Pulsar|the ledger|the broker");

  static String describe(Status status) {
    String description = status.getDescription();
    if (description == null && status.getCause() != null) {
      description = rootMessage(status.getCause());
    }
    String text = status.getCode() + ": " + (description == null ? "(no description)" : description);
    if (status.getCode() == Status.Code.UNAVAILABLE && !DEPENDENCY.matcher(text).find()) {
      // the server answers UNAVAILABLE itself when Redis or Pulsar does not, naming which: then it runs
      text += " (is the Streamfold server running? `streamfold local status`)";
    }
    return text;
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }
}
