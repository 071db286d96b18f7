package dev.streamfold.cli;

import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.DeleteTransformRequest;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.UpdateTransformRequest;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.api.v1.ViewUpdate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.LongPredicate;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold transform create|update|list|status|delete}. */
@Command(name = "transform", mixinStandardHelpOptions = true, description = "Manage transformations (Flink SQL or a Java fold over a stream) and their"
    + " materialized views.",
    subcommands = {TransformCommand.Create.class, TransformCommand.Update.class, TransformCommand.ListTransforms.class,
        TransformCommand.Status.class, TransformCommand.Delete.class})
final class TransformCommand {
  /** Interval between two status polls. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(500);

  @Command(name = "create", description = {"Create a transformation, Flink SQL (--sql) or a Java fold (--jar --class"
      + " --stream); its Flink job backfills the view from the earliest event, then follows new events (phase LIVE).",
      "A Java transformation implements dev.streamfold.transforms.fold.Transformation; the jar is stored in the"
          + " tenant's ledger, so the view can be rebuilt and replayed later (template: the examples module)."})
  static final class Create implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Transformation name, also the view name.")
    String name;

    @Option(names = "--sql", paramLabel = "SQL",
        description = "Flink SQL over one stream, e.g. \"SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin\".")
    String sql;

    @Mixin
    FoldOptions fold = new FoldOptions();

    @Option(names = "--key", paramLabel = "COLUMN", split = "\\s*,\\s*",
        description = "Row key columns (default: the first result column).")
    List<String> keyColumns = new ArrayList<>();

    @Option(names = "--wait", description = "Wait until the view is LIVE, showing the backfill progress.")
    boolean await;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "1200",
        description = "Longest wait with --wait (default: ${DEFAULT-VALUE}).")
    long timeoutS;

    @Override
    public Integer call() throws InterruptedException {
      ServerOptions.checkTimeout("--timeout", timeoutS);
      try (StreamfoldClient client = server.connect()) {
        CreateTransformRequest.Builder request = CreateTransformRequest.newBuilder().setTenant(server.tenant)
            .setName(name).addAllKeyColumns(keyColumns);
        if (fold.given(sql)) {
          request.setFold(fold.request());
        } else {
          request.setSql(sql);
        }
        Transform t = client.transforms().create(request.build());
        System.out.println("Created transformation " + t.getTenant() + "/" + t.getName() + " v" + t.getVersion()
            + (t.getStreamsCount() > 1 ? " over streams " + String.join(",", t.getStreamsList())
                : " over stream " + t.getSourceStream()) + ", key " + String.join(",", t.getKeyColumnsList())
            + ", columns " + String.join(",", t.getColumnsList())
            + (t.getFoldClass().isEmpty() ? "" : " (Java: " + t.getFoldClass() + ", jar sha256:" + t.getJarSha256() + ")"));
        if (await) {
          ViewStatus status = awaitLive(client, server.tenant, name, Duration.ofSeconds(timeoutS));
          System.out.println(describe(status));
        } else {
          System.out.println("The view backfills now; follow it with: streamfold transform status " + name);
        }
      }
      return 0;
    }
  }

  @Command(name = "update", description = {"Start the next version of a transformation beside the served one: it"
      + " backfills from the earliest event into its own view version while the served version keeps serving;"
      + " once LIVE, reads switch to it atomically and the old version is retired.",
      "Waits with progress until the new version is served. A failed or invalid update leaves the served"
          + " version untouched."})
  static final class Update implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Transformation name.")
    String name;

    @Option(names = "--sql", paramLabel = "SQL",
        description = "The new Flink SQL (may add, drop or retype columns).")
    String sql;

    @Mixin
    FoldOptions fold = new FoldOptions();

    @Option(names = "--key", paramLabel = "COLUMN", split = "\\s*,\\s*",
        description = "Row key columns (default: the first result column).")
    List<String> keyColumns = new ArrayList<>();

    @Option(names = "--no-wait", description = "Return once the new version started; follow it with"
        + " `streamfold transform status NAME`.")
    boolean noWait;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "1200",
        description = "Longest wait for the new version (default: ${DEFAULT-VALUE}).")
    long timeoutS;

    @Override
    public Integer call() throws InterruptedException {
      ServerOptions.checkTimeout("--timeout", timeoutS);
      try (StreamfoldClient client = server.connect()) {
        ViewStatus before = client.transforms().status(request(server.tenant, name));
        UpdateTransformRequest.Builder request = UpdateTransformRequest.newBuilder().setTenant(server.tenant)
            .setName(name).addAllKeyColumns(keyColumns);
        if (fold.given(sql)) {
          request.setFold(fold.request());
        } else {
          request.setSql(sql);
        }
        Transform t = client.transforms().update(request.build());
        System.out.println("Started version " + t.getVersion() + " of " + t.getTenant() + "/" + t.getName()
            + " (key " + String.join(",", t.getKeyColumnsList()) + ", columns " + String.join(",", t.getColumnsList())
            + ") " + (before.getServedVersion() > 0 ? "beside the served version " + before.getServedVersion()
                : "(no version is served yet)") + "; it is served once LIVE.");
        if (noWait) {
          System.out.println("Follow it with: streamfold transform status " + name);
          return 0;
        }
        long started = System.nanoTime();
        ViewStatus s = awaitServed(client, server.tenant, name, t.getVersion(), Duration.ofSeconds(timeoutS));
        System.out.printf("%s now serves version %d (%.1f s).%n", name, t.getVersion(),
            (System.nanoTime() - started) / 1e9);
        System.out.println(describe(s));
      }
      return 0;
    }
  }

  /**
   * Poll a transformation's status every {@link #POLL_INTERVAL} with a progress bar (the new version's
   * events applied / backfill target) until {@code version} is served.
   *
   * @return the status once served
   * @throws CliException if the update FAILED or was replaced (the served version is untouched), or the
   *     timeout passes
   */
  /** What a view serves, in words: "version N is served", or that none is (its first version never went LIVE). */
  static String served(ViewStatus s) {
    return s.getServedVersion() > 0 ? "version " + s.getServedVersion() + " is served"
        : "no version of it is served (none finished its first backfill)";
  }

  static ViewStatus awaitServed(StreamfoldClient client, String tenant, String name, int version, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean stalled = false;
    try (ProgressBar bar = Progress.bar("update " + name + " v" + version, 1)) {
      while (true) {
        ViewStatus s = client.transforms().status(request(tenant, name));
        if (s.getServedVersion() >= version) {
          // served before a poll saw its progress (a small stream): show the served version's figures, not 0/1
          bar.maxHint(Math.max(1, Math.max(s.getBackfillTargetEvents(), s.getEventsApplied())));
          bar.stepTo(s.getEventsApplied());
          return s;
        }
        ViewUpdate u = s.getUpdate();
        if (!s.hasUpdate() || u.getVersion() != version) {
          throw new CliException("the update of " + tenant + "/" + name + " to version " + version + " is no longer"
              + " in progress (replaced by " + (s.hasUpdate() ? "version " + u.getVersion() : "nothing") + "); "
              + served(s));
        }
        // an error with another phase is a restart in progress ("restart N of 5 after: ..."): keep waiting
        if (u.getPhase().equals("FAILED")) {
          throw new CliException("the update of " + tenant + "/" + name + " to version " + version + " FAILED: "
              + u.getError() + "; " + (s.getServedVersion() > 0
                  ? "version " + s.getServedVersion() + " is still served, untouched" : served(s)));
        }
        bar.maxHint(Math.max(1, Math.max(u.getBackfillTargetEvents(), u.getEventsApplied())));
        bar.stepTo(u.getEventsApplied());
        stalled = warnOnStall("backfill of " + name + " v" + version, stalled, u.getStalled());
        if (System.nanoTime() - deadline > 0) {
          throw new CliException("version " + version + " of " + tenant + "/" + name + " not served after "
              + timeout.toSeconds() + " s (" + u.getPhase() + ", " + u.getEventsApplied() + " of "
              + u.getBackfillTargetEvents() + " events); it goes on: streamfold transform status " + name);
        }
        Thread.sleep(POLL_INTERVAL.toMillis());
      }
    }
  }

  /**
   * Print a stall once, when it begins, on stderr (the progress bar's line is too short for its cause); print
   * again when the backfill moves and stalls anew.
   *
   * @param work what is waited for, for the line: e.g. "backfill of delays v2", "replay delays@12:5:-1:4"
   * @param warned whether this stall was printed already
   * @param stall the status's stall text, "" while the backfill makes progress
   * @return whether a stall is now printed
   */
  static boolean warnOnStall(String work, boolean warned, String stall) {
    if (stall.isEmpty()) {
      return false;
    }
    if (!warned) {
      System.err.println();
      System.err.println(work + " STALLED: " + stall + " (still waiting)");
    }
    return true;
  }

  @Command(name = "list", description = "List the transformations of a tenant.")
  static final class ListTransforms implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        List<Transform> list = client.transforms()
            .list(ListTransformsRequest.newBuilder().setTenant(server.tenant).build()).getTransformsList();
        if (list.isEmpty()) {
          System.out.println("No transformations in tenant " + server.tenant + ".");
          return 0;
        }
        System.out.printf("%-24s %-16s %3s  %-16s %s%n", "NAME", "STREAM", "V", "KEY", "SQL");
        for (Transform t : list) {
          System.out.printf("%-24s %-16s %3d  %-16s %s%n", t.getName(),
              t.getStreamsCount() > 1 ? String.join(",", t.getStreamsList()) : t.getSourceStream(), t.getVersion(),
              String.join(",", t.getKeyColumnsList()),
              t.getFoldClass().isEmpty() ? t.getSql() : "(Java) " + t.getFoldClass() + " sha256:" + t.getJarSha256());
        }
      }
      return 0;
    }
  }

  @Command(name = "status", description = "Show a view's phase, progress (events applied / backfill target),"
      + " position and rows; an update in progress (both versions) and a rollback.")
  static final class Status implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Transformation name.")
    String name;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        ViewStatus s = client.transforms().status(request(server.tenant, name));
        System.out.println(describe(s));
        return s.getPhase().equals("FAILED") ? ErrorHandler.EXIT_FAILURE : 0;
      }
    }
  }

  @Command(name = "delete", description = "Stop a transformation's job and remove it and its view.")
  static final class Delete implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Transformation name.")
    String name;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        boolean deleted = client.transforms().delete(DeleteTransformRequest.newBuilder().setTenant(server.tenant)
            .setName(name).build()).getDeleted();
        System.out.println(deleted ? "Deleted transformation " + server.tenant + "/" + name + " and its view."
            : "No transformation " + server.tenant + "/" + name + " to delete.");
      }
      return 0;
    }
  }

  /** {@code --jar --class --stream}: a Java transformation instead of {@code --sql}. */
  static final class FoldOptions {
    /** gRPC's default maximum inbound message size (4 MiB), less room for the rest of the request. */
    static final long MAX_JAR_BYTES = 4L * 1024 * 1024 - 64 * 1024;

    @Option(names = "--jar", paramLabel = "FILE",
        description = "A jar with a Java transformation (with --class and --stream instead of --sql).")
    java.nio.file.Path jar;

    @Option(names = "--class", paramLabel = "CLASS",
        description = "The class in --jar implementing dev.streamfold.transforms.fold.Transformation.")
    String className;

    @Option(names = "--stream", paramLabel = "STREAM", description = "The stream the Java transformation folds.")
    String stream;

    /**
     * Whether a Java transformation is asked for; checks that exactly one of --sql and --jar is given.
     *
     * @throws CliException naming the missing or conflicting options
     */
    boolean given(String sql) {
      boolean java = jar != null || className != null || stream != null;
      if (sql != null && java) {
        throw new CliException("give either --sql or --jar/--class/--stream, not both");
      }
      if (sql == null && !java) {
        throw new CliException("give the transformation: --sql SQL, or --jar FILE --class CLASS --stream STREAM");
      }
      if (java && (jar == null || className == null || stream == null)) {
        throw new CliException("a Java transformation needs --jar, --class and --stream; missing: "
            + ((jar == null ? "--jar " : "") + (className == null ? "--class " : "") + (stream == null ? "--stream" : ""))
            .trim());
      }
      return java;
    }

    dev.streamfold.api.v1.JavaTransformation request() {
      if (!java.nio.file.Files.isRegularFile(jar)) {
        throw new CliException("--jar " + jar + ": no such file");
      }
      try {
        long size = java.nio.file.Files.size(jar);
        if (size > MAX_JAR_BYTES) {
          throw new CliException("--jar " + jar + " is " + size + " bytes; at most " + MAX_JAR_BYTES
              + " bytes are accepted (gRPC's 4 MiB message limit): do not bundle Flink, Jackson or Streamfold,"
              + " the server provides them");
        }
        return dev.streamfold.api.v1.JavaTransformation.newBuilder()
            .setJar(com.google.protobuf.ByteString.copyFrom(java.nio.file.Files.readAllBytes(jar)))
            .setClassName(className).setStream(stream).build();
      } catch (java.io.IOException e) {
        throw new CliException("--jar " + jar + ": cannot read: " + e.getMessage(), e);
      }
    }
  }

  static GetTransformRequest request(String tenant, String name) {
    return GetTransformRequest.newBuilder().setTenant(tenant).setName(name).build();
  }

  static String describe(ViewStatus s) {
    StringBuilder text = new StringBuilder();
    text.append("View ").append(s.getTenant()).append('/').append(s.getView()).append(": ").append(s.getPhase());
    if (s.getServedVersion() > 0) {
      text.append(", serves version ").append(s.getServedVersion());
    }
    text.append(String.format(", %,d events applied (backfill target %,d)", s.getEventsApplied(),
            s.getBackfillTargetEvents()))
        .append(String.format(", %,d rows", s.getRows()));
    if (s.getPositionCount() > 0) {
      text.append(", position ").append(String.join(",", s.getPositionList()));
    }
    if (!s.getClockPosition().isEmpty()) {
      text.append(", position tick ").append(s.getClockPosition());
    }
    if (s.getUpdatedAtMs() > 0) {
      text.append(", last commit ").append(Instant.ofEpochMilli(s.getUpdatedAtMs()));
    }
    if (!s.getError().isEmpty()) {
      text.append("\n  error: ").append(s.getError());
    }
    if (!s.getStalled().isEmpty()) {
      text.append("\n  STALLED: ").append(s.getStalled());
    }
    if (s.getVersion() > 0 && (s.hasUpdate() || s.getServedVersion() != s.getVersion())) {
      text.append("\n  version ").append(s.getVersion())
          .append(s.getServedVersion() == 0 ? " (not served yet: first backfill)"
              : s.getServedVersion() == s.getVersion() ? " (served)" : " (served: v" + s.getServedVersion() + ")")
          .append(", job ").append(s.getJobState());
    }
    if (s.hasUpdate()) {
      ViewUpdate u = s.getUpdate();
      text.append("\n  update to version ").append(u.getVersion()).append(": ").append(u.getPhase())
          .append(String.format(", %,d events applied (backfill target %,d", u.getEventsApplied(), u.getBackfillTargetEvents()))
          .append(u.getBackfillTargetEvents() > 0
              ? String.format(", %.0f%%)", 100.0 * u.getEventsApplied() / u.getBackfillTargetEvents()) : ")")
          .append(String.format(", %,d rows, job %s; served once LIVE", u.getRows(), u.getJobState()));
      if (!u.getError().isEmpty()) {
        text.append("\n    error: ").append(u.getError()).append(" (the served version is untouched)");
      }
      if (!u.getStalled().isEmpty()) {
        text.append("\n    STALLED: ").append(u.getStalled()).append(" (the served version is untouched)");
      }
    }
    if (!s.getRolledBackTo().isEmpty()) {
      text.append("\n  ROLLED BACK to virtual state ").append(s.getRolledBackTo())
          .append(": reads return it; the fields above are the live state, kept current underneath"
              + " (streamfold resume ").append(s.getView()).append(')');
    }
    return text.toString();
  }

  /**
   * Poll a view's status every {@link #POLL_INTERVAL} with a progress bar (events applied / backfill
   * target) until it is LIVE.
   *
   * @return the LIVE status
   * @throws CliException if the view FAILED (the message carries its error) or the timeout passes
   */
  static ViewStatus awaitLive(StreamfoldClient client, String tenant, String name, Duration timeout)
      throws InterruptedException {
    return await(client, tenant, name, timeout, "backfill " + name, -1,
        applied -> false, "LIVE");
  }

  /**
   * Poll a view's status until it is LIVE and has applied at least {@code events} events.
   *
   * @return the status reached
   * @throws CliException if the view FAILED or the timeout passes
   */
  static ViewStatus awaitApplied(StreamfoldClient client, String tenant, String name, long events, Duration timeout)
      throws InterruptedException {
    return await(client, tenant, name, timeout, "apply " + name, events, applied -> applied >= events, null);
  }

  private static ViewStatus await(StreamfoldClient client, String tenant, String name, Duration timeout,
      String task, long target, LongPredicate reached, String phase) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ViewStatus s = client.transforms().status(request(tenant, name));
    boolean stalled = false;
    try (ProgressBar bar = Progress.bar(task, target > 0 ? target : Math.max(s.getBackfillTargetEvents(), 1))) {
      while (true) {
        if (s.getPhase().equals("FAILED")) {
          throw new CliException("view " + tenant + "/" + name + " FAILED: " + s.getError());
        }
        if (target <= 0 && s.getBackfillTargetEvents() > 0) {
          bar.maxHint(s.getBackfillTargetEvents());
        }
        bar.stepTo(s.getEventsApplied());
        stalled = warnOnStall("backfill of " + name, stalled, s.getStalled());
        boolean live = s.getPhase().equals("LIVE");
        if (phase != null ? live : live && reached.test(s.getEventsApplied())) {
          if (target <= 0) {
            bar.maxHint(Math.max(s.getEventsApplied(), 1));
          }
          return s;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new CliException("view " + tenant + "/" + name + " not " + (phase != null ? "LIVE" : "caught up")
              + " after " + timeout.toSeconds() + " s: " + describe(s).replace('\n', ' '));
        }
        Thread.sleep(POLL_INTERVAL.toMillis());
        s = client.transforms().status(request(tenant, name));
      }
    }
  }
}
