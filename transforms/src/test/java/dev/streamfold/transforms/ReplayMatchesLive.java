package dev.streamfold.transforms;

import dev.streamfold.core.MessageId;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The determinism guarantee ("replay to position P yields the rows the live view had at P") checked on every
 * view an integration test created: for each view, its live rows and committed position are read in one atomic
 * snapshot, its transformation is replayed to exactly that position into a virtual state (the message ID of an
 * unpartitioned stream, the position vector of a partitioned one), and the two are compared key by key and
 * column by column, exactly; then the virtual state is dropped.
 *
 * <p>Views that cannot be replayed to a live position by design are skipped, each with its reason printed:
 * deleted views (the catalog no longer lists them), views with no served version yet or whose served version is
 * still STARTING or BACKFILLING, FAILED views, views with nothing applied (no position to replay to), views with an
 * update being built beside them (its swap would change the live version during the check), views behind their
 * stream after {@link #DEFAULT_CATCH_UP} (still being appended to, or stopped), and views whose transformation no
 * longer plans against their stream's current columns (the manager refuses the replay). Views past the cap are
 * skipped too, and said so.
 *
 * <p>Call it before the manager (and the cluster) is closed: {@link #since} in {@code @BeforeAll}, {@link #check}
 * in {@code @AfterAll}. Each compared view costs one bounded Flink job (a few seconds).
 */
final class ReplayMatchesLive {
  /** How long a view whose job runs may take to apply every event of its stream before it is skipped. */
  static final Duration DEFAULT_CATCH_UP = Duration.ofSeconds(30);
  /** How long one replay may take to complete. */
  static final Duration REPLAY_TIMEOUT = Duration.ofMinutes(3);
  /** How many differing keys a mismatch names. */
  static final int DIFFERENCES_SHOWN = 5;

  private final Ledger ledger;
  private final Set<String> tenantsBefore;

  private ReplayMatchesLive(Ledger ledger, Set<String> tenantsBefore) {
    this.ledger = ledger;
    this.tenantsBefore = tenantsBefore;
  }

  /**
   * Remember the tenants that exist now: {@link #check(TransformManager, ViewStore, int)} covers the tenants
   * created afterwards (the test classes of one JVM share Pulsar and run one after the other).
   *
   * @param ledger the ledger the test creates its tenants in
   * @return the check, to run once the test's views are in place
   */
  static ReplayMatchesLive since(Ledger ledger) {
    return new ReplayMatchesLive(Objects.requireNonNull(ledger, "ledger"), new HashSet<>(ledger.tenants()));
  }

  /**
   * Replay every view of every tenant created since {@link #since} and compare it with its live state.
   *
   * @param manager the manager whose cluster runs the replays (it must still be open)
   * @param views the view store the views live in
   * @param maxViews at most this many views are compared (in tenant, then view name order); the rest are skipped
   * @return what was compared and what was skipped, and why
   * @throws AssertionError if a replay differs from its live view (naming each view, its position and the first
   *     differing keys) or a replay fails
   */
  Report check(TransformManager manager, ViewStore views, int maxViews) {
    List<String> tenants = new ArrayList<>(ledger.tenants());
    tenants.removeAll(tenantsBefore);
    return check(manager, views, tenants, maxViews);
  }

  /**
   * Replay every view of the given tenants and compare it with its live state.
   *
   * @param manager the manager whose cluster runs the replays (it must still be open)
   * @param views the view store the views live in
   * @param tenants the tenants whose catalog lists the views
   * @param maxViews at most this many views are compared (in tenant, then view name order); the rest are skipped
   * @return what was compared and what was skipped, and why
   * @throws IllegalArgumentException if {@code maxViews} is negative
   * @throws AssertionError if a replay differs from its live view (naming each view, its position and the first
   *     differing keys) or a replay fails
   */
  static Report check(TransformManager manager, ViewStore views, Collection<String> tenants, int maxViews) {
    if (maxViews < 0) {
      throw new IllegalArgumentException("maxViews must be >= 0, got " + maxViews);
    }
    long startNanos = System.nanoTime();
    List<String> compared = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    List<String> mismatches = new ArrayList<>();
    for (String tenant : new TreeSet<>(tenants)) {
      for (TransformDefinition definition : sortedByName(manager.list(tenant))) {
        ViewName name = new ViewName(tenant, definition.name());
        Optional<String> reason = unreplayable(manager, views, name);
        if (reason.isEmpty() && compared.size() >= maxViews) {
          reason = Optional.of("over the cap of " + maxViews + " views per check");
        }
        if (reason.isPresent()) {
          skipped.add(name + ": " + reason.get());
          print("skipped " + name + ": " + reason.get());
          continue;
        }
        long viewStartNanos = System.nanoTime();
        Outcome outcome = compare(manager, views, name);
        if (outcome.skipReason() != null) {
          skipped.add(name + ": " + outcome.skipReason());
          print("skipped " + name + ": " + outcome.skipReason());
          continue;
        }
        compared.add(name.toString());
        if (outcome.mismatch() != null) {
          mismatches.add(outcome.mismatch());
        }
        print((outcome.mismatch() == null ? "matches " : "DIFFERS ") + name + " at " + outcome.position() + " ("
            + outcome.rows() + " rows, " + outcome.events() + " events) in "
            + (System.nanoTime() - viewStartNanos) / 1_000_000 + " ms");
      }
    }
    print("compared " + compared.size() + " views, skipped " + skipped.size() + ", in "
        + (System.nanoTime() - startNanos) / 1_000_000 + " ms");
    if (!mismatches.isEmpty()) {
      throw new AssertionError("replay to the live position differs from the live view for " + mismatches.size()
          + " of " + compared.size() + " views:\n" + String.join("\n", mismatches));
    }
    return new Report(List.copyOf(compared), List.copyOf(skipped));
  }

  /**
   * What a check did.
   *
   * @param compared the views compared (each equal to its replay), as {@code tenant/view}
   * @param skipped the views skipped, each as {@code tenant/view: reason}
   */
  record Report(List<String> compared, List<String> skipped) {
    /**
     * Fail when the catalog listed views and every one of them was skipped: the check then proved nothing.
     *
     * @return this report
     * @throws AssertionError if views were listed and none was compared
     */
    Report assertComparedAny() {
      if (compared.isEmpty() && !skipped.isEmpty()) {
        throw new AssertionError("no view was compared with its replay; skipped: " + String.join("; ", skipped));
      }
      return this;
    }
  }

  /** The result of one view's comparison: a skip reason, or the position, sizes and a mismatch (null when equal). */
  private record Outcome(String skipReason, String position, int rows, long events, String mismatch) {
    static Outcome skip(String reason) {
      return new Outcome(reason, "", 0, 0, null);
    }
  }

  private static List<TransformDefinition> sortedByName(List<TransformDefinition> definitions) {
    List<TransformDefinition> sorted = new ArrayList<>(definitions);
    sorted.sort(java.util.Comparator.comparing(TransformDefinition::name));
    return sorted;
  }

  /** Why the view cannot be compared with a replay now, or empty when it can. */
  private static Optional<String> unreplayable(TransformManager manager, ViewStore views, ViewName name) {
    ViewStatus status;
    try {
      status = manager.status(name.tenant(), name.view());
    } catch (TransformException.NotFound deleted) {
      return Optional.of("deleted meanwhile");
    }
    if (status.update().isPresent()) {
      return Optional.of("an update (version " + status.update().get().definition().version()
          + ") is being built beside it");
    }
    if (status.servedVersion() == 0) {
      return Optional.of("no version served yet (still backfilling its first version)");
    }
    Optional<ViewMetadata> live = views.liveMetadata(name);
    if (live.isEmpty()) {
      return Optional.of("no metadata for its served version " + status.servedVersion());
    }
    if (live.get().phase() == ViewPhase.FAILED) {
      return Optional.of("FAILED: " + live.get().error());
    }
    if (live.get().phase() != ViewPhase.LIVE) {
      return Optional.of("its served version is " + live.get().phase() + ", not LIVE");
    }
    long[] applied = {live.get().eventsApplied()};
    long[] inStream = {manager.sourceEvents(name.tenant(), name.view()).orElse(-1)};
    if (applied[0] != inStream[0] && status.jobState().equals("RUNNING")) {
      try {
        Awaitility.await().atMost(DEFAULT_CATCH_UP).pollInterval(Duration.ofMillis(200)).until(() -> {
          applied[0] = views.liveMetadata(name).map(ViewMetadata::eventsApplied).orElse(-1L);
          inStream[0] = manager.sourceEvents(name.tenant(), name.view()).orElse(-1);
          return applied[0] == inStream[0];
        });
      } catch (ConditionTimeoutException e) {
        // reported below
      }
    }
    if (applied[0] != inStream[0]) {
      return Optional.of("behind its stream (applied " + applied[0] + " of " + inStream[0] + " events, job "
          + status.jobState() + "): still being appended to, or stopped");
    }
    if (live.get().position().isEmpty()) {
      return Optional.of("nothing applied: no position to replay to");
    }
    return Optional.empty();
  }

  /** Replay the view to the position of an atomic snapshot of its live version and compare the two. */
  private static Outcome compare(TransformManager manager, ViewStore views, ViewName name) {
    int version = views.servedVersion(name);
    ViewStore.Snapshot live = views.snapshot(name, version);
    if (live.position().isEmpty()) {
      return Outcome.skip("nothing applied: no position to replay to");
    }
    List<MessageId> ids = live.position().messageIds();
    ReplayCursor to = ids.get(0).partition() < 0
        ? new ReplayCursor(ReplayCursor.Kind.MESSAGE, Optional.of(ids.get(0)), 0, true)
        : new ReplayCursor(ReplayCursor.Kind.POSITION, Optional.empty(), 0, true, ids);
    String position = live.position().toString();
    String state = freeName(views, name);
    try {
      manager.replay(name.tenant(), name.view(), Optional.empty(), to, Optional.of(state));
    } catch (TransformException.Conflict refused) {
      if (refused.getMessage() != null && refused.getMessage().contains("cannot be replayed")) {
        return Outcome.skip("replay refused by design: " + refused.getMessage());
      }
      throw refused;
    }
    try {
      VirtualStateStatus done = awaitComplete(manager, name, state, position);
      ViewStore.Snapshot replayed = views.snapshot(new ViewName(name.tenant(), state), 1);
      String mismatch = null;
      List<String> differences = differences(live.rows(), replayed.rows(), DIFFERENCES_SHOWN);
      if (!differences.isEmpty() || replayed.eventsApplied() != live.eventsApplied()
          || !new HashSet<>(replayed.position().texts()).equals(new HashSet<>(live.position().texts()))) {
        mismatch = name + " (version " + version + ", replayed with version " + done.state().transformVersion()
            + ") at " + position + ": live " + live.rows().size() + " rows, " + live.eventsApplied() + " events;"
            + " replay " + replayed.rows().size() + " rows, " + replayed.eventsApplied() + " events at "
            + replayed.position()
            + (differences.isEmpty() ? "" : "; first differing keys:\n  " + String.join("\n  ", differences));
      }
      return new Outcome(null, position, live.rows().size(), live.eventsApplied(), mismatch);
    } finally {
      manager.dropVirtualState(name.tenant(), state);
    }
  }

  private static String freeName(ViewStore views, ViewName name) {
    String base = "replay_check_" + name.view();
    base = base.substring(0, Math.min(base.length(), 90));
    String candidate = base;
    for (int i = 2; views.schema(new ViewName(name.tenant(), candidate)).isPresent(); i++) {
      candidate = base + "_" + i;
    }
    return candidate;
  }

  private static VirtualStateStatus awaitComplete(TransformManager manager, ViewName view, String state,
      String position) {
    AtomicReference<VirtualStateStatus> last = new AtomicReference<>();
    Awaitility.await("replay of " + view + " to " + position).atMost(REPLAY_TIMEOUT)
        .pollInterval(Duration.ofMillis(100)).until(() -> {
          VirtualStateStatus status = manager.virtualState(view.tenant(), state);
          last.set(status);
          ViewPhase phase = status.progress().map(ViewMetadata::phase).orElse(ViewPhase.STARTING);
          if (phase == ViewPhase.FAILED) {
            throw new AssertionError("the replay of " + view + " to " + position + " failed: "
                + status.progress().get().error());
          }
          return phase == ViewPhase.COMPLETE;
        });
    return last.get();
  }

  /**
   * Describe the first keys whose rows differ, in key order: a row only one side has, or the columns whose
   * values differ (a column only one side has included).
   *
   * @param live the live view's rows, row key to (column to value)
   * @param replayed the replay's rows
   * @param max at most this many keys are described
   * @return one line per differing key, empty when the rows are equal
   */
  static List<String> differences(Map<String, Map<String, String>> live, Map<String, Map<String, String>> replayed,
      int max) {
    List<String> out = new ArrayList<>();
    Set<String> keys = new TreeSet<>(live.keySet());
    keys.addAll(replayed.keySet());
    int differing = 0;
    for (String key : keys) {
      Map<String, String> a = live.get(key);
      Map<String, String> b = replayed.get(key);
      if (Objects.equals(a, b)) {
        continue;
      }
      differing++;
      if (out.size() >= max) {
        continue;
      }
      if (a == null) {
        out.add("key '" + key + "': only in the replay " + b);
      } else if (b == null) {
        out.add("key '" + key + "': only in the live view " + a);
      } else {
        List<String> columns = new ArrayList<>();
        Set<String> names = new TreeSet<>(a.keySet());
        names.addAll(b.keySet());
        for (String column : names) {
          if (!Objects.equals(a.get(column), b.get(column))) {
            columns.add(column + " live " + show(a.get(column)) + ", replay " + show(b.get(column)));
          }
        }
        out.add("key '" + key + "': " + String.join("; ", columns));
      }
    }
    if (differing > out.size()) {
      out.add("... " + (differing - out.size()) + " more differing keys");
    }
    return out;
  }

  private static String show(String value) {
    return value == null ? "(absent)" : "'" + value + "'";
  }

  private static void print(String line) {
    System.out.println("ReplayMatchesLive: " + line);
  }
}
