package dev.streamfold.cli;

import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.ResumeRequest;
import dev.streamfold.api.v1.RollbackRequest;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code streamfold rollback VIEW --to ID [--as NAME]} and {@code streamfold rollback VIEW --state NAME}:
 * serve a virtual state in place of a view's live state.
 */
@Command(name = "rollback", mixinStandardHelpOptions = true,
    description = {"Make reads of VIEW return its state as of an earlier position (a complete, full-history"
        + " virtual state) until `streamfold resume VIEW`. The switch is atomic for readers.",
        "The view's job keeps running underneath: its live state stays current, resume is instant, and appends"
            + " never wait.",
        "--to reuses the virtual state VIEW@<message ID> when it exists, else replays it first (with progress)."})
final class RollbackCommand implements Callable<Integer> {
  private static final Pattern MESSAGE_ID = Pattern.compile("-?\\d+:-?\\d+:-?\\d+:-?\\d+");

  @Mixin
  ServerOptions server = new ServerOptions();

  @Parameters(index = "0", paramLabel = "VIEW", description = "The view to roll back.")
  String view;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  /** Exactly one of --to and --state. */
  static final class Target {
    @Option(names = "--to", paramLabel = "CURSOR", required = true,
        description = "The position: a message ID (or, with --as, an event time or latest), inclusive.")
    String to;

    @Option(names = "--state", paramLabel = "NAME", required = true,
        description = "An existing complete, full-history virtual state of VIEW.")
    String state;
  }

  @Option(names = "--as", paramLabel = "NAME",
      description = "With --to: name of the virtual state to replay (default VIEW@<message ID>).")
  String as;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "3600",
      description = "Longest wait for a replay (default: ${DEFAULT-VALUE}).")
  long timeoutS;

  /**
   * The virtual state {@code --to} would reuse.
   *
   * @return {@code VIEW@<id>} for a message ID without --as; empty otherwise (a replay names it)
   * @throws CliException if --as is combined with --state, or --to is not a message ID and --as is missing
   */
  Optional<String> reusableState() {
    if (target.state != null) {
      if (as != null) {
        throw new CliException("--as names the state replayed for --to; with --state the state is named already");
      }
      return Optional.empty();
    }
    String to = target.to.trim();
    if (as == null && !MESSAGE_ID.matcher(to).matches() && !to.equalsIgnoreCase("latest")) {
      throw new CliException("--to " + to + " is not a single message ID (ledgerId:entryId:partition:batchIndex), so it"
          + " has no <view>@<message ID> name: name the virtual state for this position (an event time, a"
          + " partitioned stream's position vector, or a tick tick:N of a view over several streams) with --as NAME");
    }
    return as == null && MESSAGE_ID.matcher(to).matches() ? Optional.of(view + "@" + to) : Optional.empty();
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerOptions.checkTimeout("--timeout", timeoutS);
    Optional<String> reusable = reusableState();
    try (StreamfoldClient client = server.connect()) {
      String stateName = target.state;
      boolean reused = false;
      if (stateName == null) {
        VirtualState prepared = prepare(client, reusable);
        stateName = prepared.getName();
        reused = reusedState;
      }
      VirtualState served;
      try {
        served = client.replays().rollback(RollbackRequest.newBuilder().setTenant(server.tenant)
            .setView(view).setState(stateName).build()).getState();
      } catch (StatusRuntimeException e) {
        if (reused && e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
          // e.g. the existing state was replayed with an earlier version of the view's SQL
          throw new CliException(e.getStatus().getDescription() + " (virtual state " + stateName + " existed already"
              + " and --to reuses it: drop it with `streamfold view drop " + stateName + "` and roll back again, or"
              + " replay afresh with --as NAME)", e);
        }
        throw e;
      }
      if (reused) {
        System.out.println("Reused virtual state " + stateName + ".");
      }
      System.out.printf("View %s rolled back to %s: reads return its state at position %s (%,d events, %,d rows).%n",
          view, served.getName(), !served.getClockPosition().isEmpty() ? "tick " + served.getClockPosition()
              : served.getPositionCount() == 0 ? "none (empty)" : String.join(",", served.getPositionList()),
          served.getEventsApplied(), served.getRows());
      System.out.println("The view's job keeps its live state current underneath; `streamfold resume " + view
          + "` serves it again at once.");
    }
    return 0;
  }

  /** Whether {@link #prepare} returned an existing state rather than a new replay. */
  private boolean reusedState;

  /** The complete state to roll back to: the reusable one when it exists, else a new replay. */
  private VirtualState prepare(StreamfoldClient client, Optional<String> reusable) throws InterruptedException {
    if (reusable.isPresent()) {
      try {
        VirtualState existing = client.replays().getVirtualState(VirtualStateRequest.newBuilder()
            .setTenant(server.tenant).setName(reusable.get()).build());
        if (!existing.getPhase().equals("COMPLETE")) {
          existing = ReplayCommand.await(client, server.tenant, existing.getName(), Duration.ofSeconds(timeoutS));
        }
        reusedState = true;
        return existing;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
          throw e;
        }
      }
    }
    ReplayRequest.Builder request = ReplayRequest.newBuilder().setTenant(server.tenant).setView(view).setTo(target.to);
    if (as != null) {
      request.setAs(as);
    }
    long started = System.nanoTime();
    VirtualState state = ReplayCommand.run(client, request.build(), Duration.ofSeconds(timeoutS));
    System.out.println(ReplayCommand.describeDone(state, Duration.ofNanos(System.nanoTime() - started)));
    return state;
  }

  /** {@code streamfold resume VIEW}. */
  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Point a rolled-back view's reads at its live state again (atomic for readers; instant: the"
          + " live job never stopped).")
  static final class Resume implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "VIEW", description = "The view to resume.")
    String view;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        boolean resumed = client.replays().resume(ResumeRequest.newBuilder().setTenant(server.tenant).setView(view)
            .build()).getResumed();
        var status = client.transforms().status(TransformCommand.request(server.tenant, view));
        String position = !status.getClockPosition().isEmpty() ? "tick " + status.getClockPosition()
            : status.getPositionCount() == 0 ? "none" : String.join(",", status.getPositionList());
        System.out.println(resumed ? "View " + view + " serves its live state again (" + status.getPhase()
            + ", position " + position + ")."
            : "View " + view + " was not rolled back; it serves its live state (position " + position + ").");
      }
      return 0;
    }
  }
}
