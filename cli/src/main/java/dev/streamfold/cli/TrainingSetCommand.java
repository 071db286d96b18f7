package dev.streamfold.cli;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.GetTrainingSetRequest;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetHeader;
import dev.streamfold.api.v1.TrainingSetPlan;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetValue;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamfold training-set create|status}: build a point-in-time training set from the ledger
 * ({@code ReplayService.ExportTrainingSet}) and follow it.
 */
@Command(name = "training-set", mixinStandardHelpOptions = true,
    description = "Build point-in-time ML training sets from the ledger: one row per label event, with each feature"
        + " as its view held it just before that event in ledger order; or one row per row of a labels file (CSV,"
        + " JSON Lines, Parquet), with each feature folded from the events at or before the row's time.",
    subcommands = {TrainingSetCommand.Create.class, TrainingSetCommand.StatusCommand.class})
final class TrainingSetCommand {
  private TrainingSetCommand() {}

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = {"Build a training set: one row per event of the label stream (that --where selects): its message"
          + " ID, event time, entity and label, and every feature as its view held it just before that event in"
          + " ledger order (the event itself and everything after it excluded; no row yet = null, never 0); with --cut"
          + " event-time, just before it in event-time order instead.",
          "Or one row per row of --labels-file, its columns kept, every feature the fold of the events whose event"
              + " time is at or before the row's --time (with --known-at: also acknowledged by then).",
          "The server writes --out (Parquet, CSV or JSON Lines by extension) and <out>.manifest.json beside it;"
              + " the path is made absolute here and must be valid on the server's machine (the local stack runs"
              + " on this one). Shows a progress bar, prints the first --head rows (streamed back by the server)"
              + " and one line: rows, events, seconds, rows/s, the output and the manifest.",
          "Features: [name=]VIEW.column[@join][/ttl], e.g. delays_by_origin.avg_delay,"
              + " route_delay=delays_by_route.avg_delay@origin || '>' || destination,"
              + " recent=delays_by_origin.avg_delay/2h. @join is a field or SQL expression of the label stream"
              + " giving the view's row key (default: --entity); /ttl (90s, 15m, 2h, 7d, PT2H) makes a value null"
              + " when its row last changed more than ttl (event time) before the label event."})
  static final class Create implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "The training set's name (letters, digits, '_', '-').")
    String name;

    @Option(names = "--label-stream", paramLabel = "STREAM",
        description = "The stream whose events are the labels (or --labels-file).")
    String labelStream;

    @Option(names = "--labels-file", paramLabel = "FILE",
        description = "Labels from a file instead (Feast's entity dataframe): CSV with a header line, JSON Lines or"
            + " Parquet, by extension, read by the server (the path is made absolute here). One row out per row in,"
            + " its columns kept, each feature cut by event time at the row's --time (events at or before it).")
    String labelsFile;

    @Option(names = "--time", paramLabel = "COLUMN",
        description = "With --labels-file: the column holding each row's time (ISO-8601, or a Parquet TIMESTAMP).")
    String time;

    @Option(names = "--cut", paramLabel = "RULE",
        description = "as-served (the default with --label-stream: each feature as its view held it just before the"
            + " label event in ledger order, or at the tenant clock's last tick before it for a view over other"
            + " streams) or event-time (the default and only rule with --labels-file: each feature folded from the"
            + " events before the label in event-time order; with --label-stream, --to is then latest or tick:N).")
    String cut;

    @Option(names = "--known-at", description = "Cut by event time and also leave out events the ledger acknowledged"
        + " after the label's time (what was known then, not only what had happened); implies --cut event-time.")
    boolean knownAt;

    @Option(names = "--entity", paramLabel = "EXPR", required = true,
        description = "Field or SQL expression of the label stream (or the labels file): the entity key, e.g. origin;"
            + " the default @join of the features.")
    String entity;

    @Option(names = "--label", paramLabel = "EXPR",
        description = "With --label-stream: field or SQL expression of the label stream, the label, e.g."
            + " \"delay >= 15\".")
    String label;

    @Option(names = "--where", paramLabel = "EXPR",
        description = "SQL condition selecting the label events (default: every event).")
    String where;

    @Option(names = "--features", paramLabel = "F1,F2,...",
        description = "Features, split at top-level commas (not inside parentheses or quotes).")
    List<String> featureLists = new ArrayList<>();

    @Option(names = "--feature", paramLabel = "F", description = "One feature (repeatable; commas kept as they are).")
    List<String> singleFeatures = new ArrayList<>();

    @Option(names = "--to", paramLabel = "CURSOR",
        description = "The last event read: a message ID, an event time, tick:N (the label stream's position at tick"
            + " N of the tenant clock) or latest (default: latest, as the build starts). Rebuild a set"
            + " identically with --to <its stop message ID>.")
    String to;

    @Option(names = "--before", paramLabel = "CURSOR",
        description = "Stop before this message ID, event time or tick:N (exclusive; instead of --to).")
    String before;

    @Option(names = "--out", paramLabel = "FILE",
        description = "Output file, .parquet, .csv or .jsonl (default: <data dir of the server>/training-sets/NAME.parquet).")
    String out;

    @Option(names = "--no-wait", description = "Return once the build is registered; follow it with"
        + " `streamfold training-set status NAME`.")
    boolean noWait;

    @Option(names = "--dry-run", description = "Build nothing: print the plan, validated as a build would be (the"
        + " label stream, the stop and the events to read, each feature's view, version, streams, join and type, the"
        + " columns and the output), and exit.")
    boolean dryRun;

    @Option(names = "--json", description = "With --dry-run: print the plan as one JSON object.")
    boolean json;

    @Option(names = "--head", paramLabel = "N", defaultValue = "5",
        description = "Print the first N rows as a table (default: ${DEFAULT-VALUE}; 0 for none).")
    int head;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "3600",
        description = "Longest wait for the build (default: ${DEFAULT-VALUE}); the build itself goes on.")
    long timeoutS;

    /** The features of --features (split at top-level commas) and --feature, in that order. */
    List<String> features() {
      List<String> all = new ArrayList<>();
      for (String list : featureLists) {
        all.addAll(splitTopLevel(list));
      }
      for (String one : singleFeatures) {
        if (!one.isBlank()) {
          all.add(one.trim());
        }
      }
      return all;
    }

    /** The request this command sends. */
    ExportTrainingSetRequest request() {
      checkLabels();
      if (head < 0) {
        throw new CliException("--head must be 0 or more, got " + head);
      }
      List<String> features = features();
      if (features.isEmpty()) {
        throw new CliException("give at least one feature: --features VIEW.column,... or --feature VIEW.column");
      }
      ExportTrainingSetRequest.Builder b = ExportTrainingSetRequest.newBuilder().setTenant(server.tenant).setName(name)
          .setEntity(entity).addAllFeatures(features)
          .setTo(stop().equalsIgnoreCase("latest") ? "" : stop()).setBefore(before != null).setDetach(noWait).setDryRun(dryRun)
          .setStreamRows(!dryRun && !noWait && head > 0).setMaxRows(noWait ? 0 : head)
          .setCommand(commandLine(spec.root().commandLine().getParseResult().originalArgs()));
      if (labelStream != null) {
        b.setLabelStream(labelStream).setLabel(label);
      } else {
        b.setLabelsFile(Path.of(labelsFile).toAbsolutePath().normalize().toString()).setTimeColumn(time);
      }
      b.setKnownAt(knownAt);
      if (cut != null) {
        b.setCut(cut.trim());
      }
      if (where != null) {
        b.setWhere(where);
      }
      if (out != null) {
        b.setOut(Path.of(out).toAbsolutePath().normalize().toString());
      }
      return b.build();
    }

    /** Labels from a stream (with --label) or from a file (with --time), not both. */
    private void checkLabels() {
      if (labelStream != null && labelsFile != null) {
        throw new CliException("give --label-stream or --labels-file, not both");
      }
      if (labelStream == null && labelsFile == null) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),"give the labels: --label-stream STREAM (with --label) or --labels-file FILE (with"
            + " --time), one of them");
      }
      if (labelStream != null) {
        if (label == null) {
          throw new CliException("--label-stream needs --label EXPR, e.g. --label \"delay >= 15\"");
        }
        if (time != null) {
          throw new CliException("--time goes with --labels-file; the time of a label event is its event time");
        }
      } else {
        if (time == null) {
          throw new CliException("--labels-file needs --time COLUMN: the column holding each row's time");
        }
        if (label != null || where != null) {
          throw new CliException((label != null ? "--label" : "--where") + ": with --labels-file the labels are the"
              + " file's own columns, kept as they are; leave it out");
        }
        if ("as-served".equals(cut)) {
          throw new CliException("--cut as-served: a labels file's rows are cut by event time (--cut event-time, the"
              + " default with --labels-file)");
        }
      }
      if (cut != null && !cut.equals("as-served") && !cut.equals("event-time")) {
        throw new CliException("--cut " + cut + ": give as-served or event-time");
      }
      if (knownAt && "as-served".equals(cut)) {
        throw new CliException("--known-at cuts by event time: give it with --cut event-time, not as-served");
      }
    }

    /** The stop cursor as given: --to, --before, or latest. */
    private String stop() {
      return before != null ? before : to != null ? to : "latest";
    }

    @Override
    public Integer call() {
      ServerOptions.checkTimeout("--timeout", timeoutS);
      if (to != null && before != null) {
        throw new CliException("give --to or --before, not both");
      }
      if (json && !dryRun) {
        throw new CliException("--json prints a plan: give it with --dry-run");
      }
      ExportTrainingSetRequest request = request();
      try (StreamfoldClient client = server.connect()) {
        if (dryRun) {
          TrainingSetPlan plan = plan(client, request, Duration.ofSeconds(timeoutS));
          System.out.print(json ? TrainingSetPlans.json(plan) : TrainingSetPlans.text(plan));
          return 0;
        }
        Result result = run(client, request, Duration.ofSeconds(timeoutS));
        if (noWait) {
          TrainingSetProgress p = result.progress();
          System.out.println("Building training set " + p.getName() + " (" + p.getPhase() + ", "
              + String.format("%,d", p.getTargetEvents()) + " events to read) into " + p.getOutput()
              + "; follow it with: streamfold training-set status " + p.getName());
          return 0;
        }
        if (result.header() != null && head > 0) {
          System.out.print(table(result.header(), result.rows()));
        }
        System.out.println(describeDone(result.done()));
      }
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "The latest build of a training set since the server started: phase, events read, rows, output.")
  static final class StatusCommand implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "The training set.")
    String name;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        TrainingSetProgress p = client.replays().getTrainingSet(GetTrainingSetRequest.newBuilder()
            .setTenant(server.tenant).setName(name).build());
        System.out.println(describe(p));
      }
      return 0;
    }
  }

  /** What one call answered: the last progress, the header and rows streamed back, the summary. */
  record Result(TrainingSetProgress progress, TrainingSetHeader header, List<TrainingSetRow> rows, TrainingSetDone done) {}

  /**
   * Start a build and follow its stream with a progress bar until the summary (or, for a detached request,
   * the first progress message).
   *
   * @return what the call answered
   * @throws StatusRuntimeException with the server's status (ABORTED when the build FAILED)
   * @throws CliException if the timeout passes first or the stream ends early
   */
  /** The plan the server answers a dry run with. */
  static TrainingSetPlan plan(StreamfoldClient client, ExportTrainingSetRequest request, Duration timeout) {
    Iterator<ExportTrainingSetResponse> stream = client.replayStream(timeout).exportTrainingSet(request);
    while (stream.hasNext()) {
      ExportTrainingSetResponse message = stream.next();
      if (message.hasPlan()) {
        return message.getPlan();
      }
    }
    throw new CliException("the server answered the dry run of training set " + request.getName() + " without a plan"
        + " (a server older than this CLI builds nothing and answers nothing for --dry-run)");
  }

  static Result run(StreamfoldClient client, ExportTrainingSetRequest request, Duration timeout) {
    Iterator<ExportTrainingSetResponse> stream = client.replayStream(timeout).exportTrainingSet(request);
    TrainingSetProgress progress = null;
    TrainingSetHeader header = null;
    List<TrainingSetRow> rows = new ArrayList<>();
    TrainingSetDone done = null;
    ProgressBar bar = null;
    try {
      while (stream.hasNext()) {
        ExportTrainingSetResponse message = stream.next();
        switch (message.getKindCase()) {
          case PROGRESS -> {
            progress = message.getProgress();
            if (request.getDetach()) {
              return new Result(progress, null, rows, null);
            }
            if (bar == null) {
              bar = Progress.bar("training set " + progress.getName(), Math.max(1, progress.getTargetEvents()));
            }
            step(bar, progress);
          }
          case HEADER -> header = message.getHeader();
          case ROWS -> rows.addAll(message.getRows().getRowsList());
          case DONE -> done = message.getDone();
          default -> { } // a newer server's message: ignore
        }
        if (done != null) {
          break;
        }
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
        throw new CliException("the training set " + request.getName() + " was not built within " + timeout.toSeconds()
            + " s; the build goes on: follow it with `streamfold training-set status " + request.getName() + "`", e);
      }
      throw e;
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
    if (done == null) {
      throw new CliException("the server ended the training-set stream of " + request.getName() + " without its summary"
          + (progress == null ? "" : " (last phase " + progress.getPhase() + ")"));
    }
    return new Result(progress, header, rows, done);
  }

  private static void step(ProgressBar bar, TrainingSetProgress p) {
    if (p.getTargetEvents() > 0) {
      bar.maxHint(Math.max(p.getTargetEvents(), p.getEventsRead()));
    }
    bar.stepTo(p.getEventsRead());
    if (p.getPhase().equals("COMPLETE")) {
      bar.maxHint(Math.max(1, p.getEventsRead()));
      bar.stepTo(p.getEventsRead());
    }
  }

  /**
   * Split a feature list at its top-level commas: not inside parentheses, single or double quotes or
   * backticks (SQL's doubled quotes inside a string stay inside it). Blank items are dropped.
   *
   * @param text e.g. {@code a.x,r=b.y@CONCAT(origin, '>', destination),c.z@'a,b'}
   * @return the features, trimmed
   * @throws CliException if a parenthesis or quote is not closed
   */
  static List<String> splitTopLevel(String text) {
    List<String> parts = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int depth = 0;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        if (depth == 0) {
          throw new CliException("--features: unbalanced ')' at position " + (i + 1) + " of '" + text + "'");
        }
        depth--;
      } else if (c == ',' && depth == 0) {
        add(parts, current);
        continue;
      }
      current.append(c);
    }
    if (quote != 0) {
      throw new CliException("--features: unclosed " + quote + " in '" + text + "'");
    }
    if (depth != 0) {
      throw new CliException("--features: unclosed '(' in '" + text + "'");
    }
    add(parts, current);
    return parts;
  }

  private static void add(List<String> parts, StringBuilder current) {
    String part = current.toString().trim();
    if (!part.isEmpty()) {
      parts.add(part);
    }
    current.setLength(0);
  }

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  /**
   * The exact command line, for the manifest: {@code streamfold} and the arguments, each quoted for a POSIX
   * shell when it needs to be.
   *
   * @param args the arguments as the command received them
   * @return e.g. {@code streamfold training-set create delayed --label 'delay >= 15' ...}
   */
  static String commandLine(List<String> args) {
    StringBuilder b = new StringBuilder("streamfold");
    for (String arg : args) {
      b.append(' ').append(SAFE.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'");
    }
    return b.toString();
  }

  /**
   * The final line of a build.
   *
   * @return e.g. {@code Training set delayed: 1,200 rows from 1,200 events in 3.4 s (353 rows/s), up to message
   *     ID 12:5:-1:4 → /data/delayed.parquet (manifest /data/delayed.parquet.manifest.json)}
   */
  static String describeDone(TrainingSetDone d) {
    return String.format(Locale.ROOT, "Training set %s: %,d rows from %,d events in %.1f s (%,.0f rows/s), up to %s"
        + " → %s (manifest %s)", d.getName(), d.getRows(), d.getEventsRead(), d.getSeconds(), d.getRowsPerSecond(),
        d.getStopMessageId().isEmpty() ? "message ID none (no event in the range: an empty stream, or --to before every event)"
            : d.getStopMessageId().startsWith("tick:") ? d.getStopMessageId() + " of the tenant clock"
            : (d.getStopMessageId().contains(",") ? "position " : "message ID ") + d.getStopMessageId(),
        d.getOutput(), d.getManifest());
  }

  /** One line describing a build, for {@code training-set status}. */
  static String describe(TrainingSetProgress p) {
    String files = p.getPhase().equals("FAILED") ? "nothing written" // a failed build leaves neither file
        : "output " + p.getOutput() + ", manifest " + p.getManifest();
    return String.format(Locale.ROOT, "Training set %s %s: %,d of %,d events read, %,d rows, %.1f s, %s%s",
        p.getName(), p.getPhase(), p.getEventsRead(), p.getTargetEvents(), p.getRows(), p.getElapsedMs() / 1000.0,
        files, p.getError().isEmpty() ? "" : ", error: " + p.getError());
  }

  /**
   * The rows as a small text table: a header line of column names, then one line per row; timestamps in
   * ISO-8601 (UTC), doubles to 4 decimals, missing values as {@code null}, cells cut at 40 characters.
   */
  static String table(TrainingSetHeader header, List<TrainingSetRow> rows) {
    int n = header.getColumnsCount();
    List<String[]> cells = new ArrayList<>();
    cells.add(header.getColumnsList().toArray(new String[0]));
    for (TrainingSetRow row : rows) {
      String[] line = new String[n];
      for (int i = 0; i < n; i++) {
        line[i] = i < row.getValuesCount() ? cell(header.getTypes(i), row.getValues(i)) : "";
      }
      cells.add(line);
    }
    int[] width = new int[n];
    for (String[] line : cells) {
      for (int i = 0; i < n; i++) {
        width[i] = Math.max(width[i], line[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] line : cells) {
      StringBuilder l = new StringBuilder();
      for (int i = 0; i < n; i++) {
        l.append(String.format("%-" + width[i] + "s", line[i]));
        if (i < n - 1) {
          l.append("  ");
        }
      }
      b.append(l.toString().stripTrailing()).append('\n');
    }
    if (rows.isEmpty()) {
      b.append("(no rows)\n");
    }
    return b.toString();
  }

  private static String cell(String type, TrainingSetValue v) {
    String text = switch (v.getKindCase()) {
      case IS_NULL, KIND_NOT_SET -> "null";
      case STRING_VALUE -> v.getStringValue();
      case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
      case DOUBLE_VALUE -> new DecimalFormat("0.####", DecimalFormatSymbols.getInstance(Locale.ROOT))
          .format(v.getDoubleValue());
      case INT64_VALUE -> switch (type) {
        case "TIMESTAMP" -> Instant.ofEpochMilli(v.getInt64Value()).toString();
        case "DATE" -> LocalDate.ofEpochDay(v.getInt64Value()).toString();
        default -> Long.toString(v.getInt64Value());
      };
    };
    return text.length() > 40 ? text.substring(0, 39) + "…" : text;
  }
}
