package dev.streamfold.cli;

import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code streamfold replay VIEW (--to|--before) CURSOR [--from CURSOR] [--as NAME] [--no-wait]}: fold the
 * ledger up to a position into a virtual state, with a progress bar.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Replay a view's transformation from the earliest event (or --from) up to a position into a"
        + " virtual state: a read-only view, read over RESP as NAME:<key> (default name VIEW@<message ID>).",
        "Cursors: a message ID (ledgerId:entryId:partition:batchIndex, as Append returns it), an event time"
            + " (2015-01-02T10:00:00Z; a date-time or date without zone is UTC; or epoch milliseconds) or latest;"
            + " for a view over several streams, a tick of the tenant clock (tick:N, as VIEW.INFO reports), a message ID"
            + " of any of its streams (the first tick covering it), a time (the last tick recorded by then) or latest."
            + " --to includes the named event, --before excludes it; an event-time stop ends at the first event"
            + " later than the time, in ledger order."})
final class ReplayCommand implements Callable<Integer> {
  @Mixin
  ServerOptions server = new ServerOptions();

  @Parameters(index = "0", paramLabel = "VIEW", description = "The view (transformation) to replay.")
  String view;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Stop stop;

  /** Exactly one of --to and --before. */
  static final class Stop {
    @Option(names = "--to", paramLabel = "CURSOR", required = true,
        description = "Stop after this message ID, event time, tick:N or latest (inclusive).")
    String to;

    @Option(names = "--before", paramLabel = "CURSOR", required = true,
        description = "Stop before this message ID, event time or tick:N (exclusive).")
    String before;
  }

  @Option(names = "--from", paramLabel = "CURSOR",
      description = "Start at this message ID or event time instead of the earliest event (a debugging window,"
          + " not the view as of any position; needs --as).")
  String from;

  @Option(names = "--as", paramLabel = "NAME",
      description = "Name of the virtual state (default: VIEW@<message ID>, for a full-history --to <message ID|latest>).")
  String as;

  @Option(names = "--no-wait", description = "Return once the replay is registered; follow it with `streamfold view list`.")
  boolean noWait;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "3600",
      description = "Longest wait for the replay (default: ${DEFAULT-VALUE}); the replay itself goes on.")
  long timeoutS;

  /** The request this command sends. */
  ReplayRequest request() {
    ReplayRequest.Builder b = ReplayRequest.newBuilder().setTenant(server.tenant).setView(view)
        .setTo(stop.to != null ? stop.to : stop.before).setBefore(stop.to == null).setDetach(noWait);
    if (from != null) {
      b.setFrom(from);
    }
    if (as != null) {
      b.setAs(as);
    }
    return b.build();
  }

  @Override
  public Integer call() {
    ServerOptions.checkTimeout("--timeout", timeoutS);
    ReplayRequest request = request();
    try (StreamfoldClient client = server.connect()) {
      long started = System.nanoTime();
      VirtualState state = run(client, request, Duration.ofSeconds(timeoutS));
      if (noWait) {
        System.out.println("Replaying " + view + " into virtual state " + state.getName() + " (" + state.getPhase()
            + ", " + String.format("%,d", state.getTargetEvents()) + " events to apply); follow it with:"
            + " streamfold view list");
        return 0;
      }
      System.out.println(describeDone(state, Duration.ofNanos(System.nanoTime() - started)));
    }
    return 0;
  }

  /**
   * Start a replay and follow its progress stream with a progress bar until it is COMPLETE (or, for a
   * detached request, registered).
   *
   * @return the last state received
   * @throws StatusRuntimeException with the server's status (ABORTED when the replay FAILED)
   * @throws CliException if the timeout passes first
   */
  static VirtualState run(StreamfoldClient client, ReplayRequest request, Duration timeout) {
    Iterator<ReplayProgress> progress = client.replayStream(timeout).replay(request);
    VirtualState state = null;
    ProgressBar bar = null;
    boolean stalled = false;
    try {
      while (progress.hasNext()) {
        state = progress.next().getState();
        if (request.getDetach()) {
          break;
        }
        if (bar == null) {
          bar = Progress.bar("replay " + state.getName(), Math.max(1, state.getTargetEvents()));
        }
        step(bar, state);
        stalled = TransformCommand.warnOnStall("replay " + state.getName(), stalled, state.getStalled());
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
        throw new CliException("the replay" + (state == null ? "" : " into " + state.getName()) + " did not finish within "
            + timeout.toSeconds() + " s; it goes on: follow it with `streamfold view list`", e);
      }
      throw e;
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
    if (state == null) {
      throw new CliException("the server ended the replay stream without any progress");
    }
    return state;
  }

  /**
   * Follow an existing virtual state (e.g. one another command is replaying) until it is COMPLETE.
   *
   * @return the COMPLETE state
   * @throws CliException if it FAILED (naming the error) or the timeout passes
   */
  static VirtualState await(StreamfoldClient client, String tenant, String name, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    VirtualStateRequest request = VirtualStateRequest.newBuilder().setTenant(tenant).setName(name).build();
    VirtualState state = client.replays().getVirtualState(request);
    boolean stalled = false;
    try (ProgressBar bar = Progress.bar("replay " + name, Math.max(1, state.getTargetEvents()))) {
      while (true) {
        if (state.getPhase().equals("FAILED")) {
          throw new CliException("virtual state " + name + " FAILED: " + state.getError() + " (drop it with"
              + " `streamfold view drop " + name + "` and replay again)");
        }
        step(bar, state);
        stalled = TransformCommand.warnOnStall("replay " + name, stalled, state.getStalled());
        if (state.getPhase().equals("COMPLETE")) {
          return state;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new CliException("virtual state " + name + " not COMPLETE after " + timeout.toSeconds() + " s ("
              + state.getPhase() + ", " + state.getEventsApplied() + " of " + state.getTargetEvents() + " events)");
        }
        Thread.sleep(200);
        state = client.replays().getVirtualState(request);
      }
    }
  }

  private static void step(ProgressBar bar, VirtualState state) {
    if (state.getTargetEvents() > 0) {
      bar.maxHint(Math.max(state.getTargetEvents(), state.getEventsApplied()));
    }
    bar.stepTo(state.getEventsApplied());
    if (state.getPhase().equals("COMPLETE")) {
      bar.maxHint(Math.max(1, state.getEventsApplied()));
      bar.stepTo(state.getEventsApplied());
    }
  }

  /**
   * The final line of a replay.
   *
   * @return e.g. {@code Virtual state delays@12:5:-1:4 COMPLETE at position 12:5:-1:4: 5,000 events applied,
   *     120 rows, 3.2 s (read rows as delays@12:5:-1:4:<key>)}
   */
  static String describeDone(VirtualState s, Duration elapsed) {
    return String.format("Virtual state %s %s at position %s: %,d events applied, %,d rows, %.1f s%s (read rows as %s:<key>)",
        s.getName(), s.getPhase(), !s.getClockPosition().isEmpty() ? "tick " + s.getClockPosition()
            : s.getPositionCount() == 0 ? "none (empty)" : String.join(",", s.getPositionList()),
        s.getEventsApplied(), s.getRows(), elapsed.toMillis() / 1000.0,
        s.getFullHistory() ? "" : ", not full history (starts " + s.getStart() + ")", s.getName());
  }
}
