package dev.streamfold.transforms.manager;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.job.ViewJobBuilder;
import dev.streamfold.transforms.runtime.CheckpointStore;
import dev.streamfold.transforms.runtime.ViewJobSupervisor;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The versions of the views a {@link TransformManager} runs: which definition is served and which update is
 * built beside it (the catalog and its updates table), the start of a new view and of an update, the swap once an
 * update is served, the resumption of every version at start, and the removal of versions that nothing serves or
 * builds any more (rows, subscription, checkpoints).
 *
 * <p>Not thread-safe: the manager calls every method that changes a version under its own lock.
 * {@link #current} only reads the two tables and Redis, and may be called from any thread.
 */
final class ViewVersions {
  private static final Logger LOG = LoggerFactory.getLogger(ViewVersions.class);

  private final Ledger ledger;
  private final ViewStore views;
  private final TransformCatalog catalog;
  private final TransformCatalog updates;
  private final CheckpointStore checkpoints;
  /** Views this manager runs, for the retirement of superseded versions. */
  private final Set<ViewName> managed = ConcurrentHashMap.newKeySet();
  /** The served version up to which older versions were retired, per view. */
  private final Map<ViewName, Integer> retiredBelow = new ConcurrentHashMap<>();
  private ViewJobSupervisor jobs;

  ViewVersions(Ledger ledger, ViewStore views, TransformCatalog catalog, TransformCatalog updates,
      CheckpointStore checkpoints) {
    this.ledger = ledger;
    this.views = views;
    this.catalog = catalog;
    this.updates = updates;
    this.checkpoints = checkpoints;
  }

  /**
   * Give the supervisor of the view jobs, once the manager has started its Flink cluster; every method but
   * {@link #current} and {@link #nextVersion} needs it.
   *
   * @param jobs the supervisor
   */
  void start(ViewJobSupervisor jobs) {
    this.jobs = jobs;
  }

  /**
   * Resume every transformation of a tenant: finish an update that was swapped in just before the last stop,
   * then resume the served version and any update in progress. A version that cannot resume is reported as
   * failed to start (its status shows the error); the others resume regardless.
   *
   * @param tenant the tenant
   */
  void resumeTenant(String tenant) {
    for (TransformDefinition definition : catalog.list(tenant)) {
      try {
        Optional<TransformDefinition> update = updates.get(tenant, definition.name());
        if (update.isPresent() && views.servedVersion(viewName(definition)) >= update.get().version()) {
          finishUpdate(update.get()); // swapped in just before the last stop
          definition = update.get();
          update = Optional.empty();
        }
        resume(definition, catalog);
        if (update.isPresent()) {
          resume(update.get(), updates);
        }
      } catch (RuntimeException e) {
        LOG.error("cannot resume transformation {}/{}", tenant, definition.name(), e);
        jobs.failedToStart(viewName(definition), definition.version(), e.getMessage());
      }
    }
  }

  /**
   * Resume a version from its latest retained checkpoint, or rebuild it as a new version on a new
   * subscription when it has none.
   *
   * @param table the catalog table the definition lives in (served, or an update in progress)
   */
  private void resume(TransformDefinition definition, TransformCatalog table) {
    managed.add(viewName(definition));
    if (table == catalog) {
      // An update in progress does not describe the view: the served version does (ViewStore.serve records the
      // update's shape as the view's when it is served).
      views.define(viewName(definition), schema(definition));
    }
    Optional<String> checkpoint = checkpoints.latest(definition);
    if (checkpoint.isPresent()) {
      LOG.info("resuming {} v{} from {}", viewName(definition), definition.version(), checkpoint.get());
      jobs.submit(definition, checkpoint);
    } else {
      TransformDefinition next = definition.withVersion(nextVersion(definition.tenant(), definition.name()));
      LOG.info("no checkpoint for {} v{}: rebuilding as v{}", viewName(definition), definition.version(), next.version());
      table.put(next);
      jobs.submit(next, Optional.empty());
    }
  }

  /** A version number no version of the view has used: above the served one, any update's and any in Redis. */
  int nextVersion(String tenant, String name) {
    int max = views.latestVersion(new ViewName(tenant, name));
    max = Math.max(max, catalog.get(tenant, name).map(TransformDefinition::version).orElse(0));
    max = Math.max(max, updates.get(tenant, name).map(TransformDefinition::version).orElse(0));
    return max + 1;
  }

  TransformDefinition startNew(TransformDefinition definition) {
    ViewName viewName = viewName(definition);
    views.drop(viewName);
    checkpoints.deleteView(definition);
    catalog.put(definition);
    views.define(viewName, schema(definition));
    managed.add(viewName);
    jobs.submit(definition, Optional.empty());
    return definition;
  }

  TransformDefinition startUpdate(TransformDefinition next) {
    String tenant = next.tenant();
    String name = next.name();
    Current served = current(tenant, name);
    TransformDefinition current = served.served();
    if (current.version() != catalog.get(tenant, name).map(TransformDefinition::version).orElse(0)) {
      // the previous update is served already: finish it, never abandon (and drop) the served version
      finishUpdate(current);
    }
    served.pending().ifPresent(this::abandonUpdate);
    updates.put(next);
    managed.add(viewName(current));
    try {
      jobs.submit(next, Optional.empty());
    } catch (RuntimeException e) {
      updates.delete(tenant, name);
      views.dropVersion(viewName(next), next.version());
      throw e;
    }
    LOG.info("updating {} from v{} to v{}", viewName(current), current.version(), next.version());
    return next;
  }

  /** Stop an update in progress and remove everything it made. */
  private void abandonUpdate(TransformDefinition update) {
    jobs.cancel(viewName(update), update.version());
    updates.delete(update.tenant(), update.name());
    removeVersion(update);
  }

  /** Remove one version's rows, subscription and checkpoints (its job is stopped). */
  private void removeVersion(TransformDefinition version) {
    views.dropVersion(viewName(version), version.version());
    jobs.forget(viewName(version), version.version());
    checkpoints.deleteVersion(version);
    if (version.readsInClockOrder()) {
      return; // its job reads the streams with readers, on no subscription
    }
    try {
      ledger.deleteSubscription(new StreamRef(version.tenant(), version.sourceStream()),
          ViewJobBuilder.subscription(version));
    } catch (RuntimeException e) {
      LOG.warn("cannot delete the subscription of {} v{}", viewName(version), version.version(), e);
    }
  }

  /** The update's version is served: it becomes the transformation; the old version is retired. */
  private void finishUpdate(TransformDefinition update) {
    Optional<TransformDefinition> old = catalog.get(update.tenant(), update.name());
    if (old.isPresent() && old.get().version() != update.version()) {
      jobs.cancel(viewName(update), old.get().version());
      removeVersion(old.get());
    }
    views.define(viewName(update), schema(update)); // the view hash has it since the serve; this refreshes caches
    catalog.put(update);
    updates.delete(update.tenant(), update.name());
    LOG.info("{} now serves v{}", viewName(update), update.version());
  }

  /**
   * Housekeeping: finish updates whose version is served, and remove the rows of versions older than the
   * served one that no job fills any more (e.g. the version a rebuild replaced). Readers never miss a row:
   * they resolve the served version and read its row in one script.
   */
  void retire() {
    for (ViewName name : List.copyOf(managed)) {
      Optional<TransformDefinition> update = updates.get(name.tenant(), name.view());
      int served = views.servedVersion(name);
      if (update.isPresent() && Retirement.updateServed(served, update.get().version())) {
        finishUpdate(update.get());
      }
      int done = retiredBelow.getOrDefault(name, 0);
      if (served > done) {
        for (int v : Retirement.versionsToDrop(served, done, v -> jobs.hasJob(name, v),
            v -> views.metadata(name, v).isPresent())) {
          views.dropVersion(name, v);
        }
        retiredBelow.put(name, served);
      }
    }
  }

  /**
   * A transformation's served definition and its update still in progress.
   *
   * @param served the definition readers see (or being built, before the first version is LIVE)
   * @param pending the next version, built beside {@code served}; empty when none or once it is served
   * @param servedVersion the version served in Redis, read once with the decision between the two (0 when none yet):
   *     read again later, a swap in between reported the old version as served version 2
   */
  record Current(TransformDefinition served, Optional<TransformDefinition> pending, int servedVersion) {}

  /**
   * Resolve which definition is served. An update's job serves its version in Redis the moment it is
   * LIVE ({@link ViewStore#serve}); the catalog follows only when {@link #finishUpdate} runs (housekeeping,
   * every 250 ms, after the old job is cancelled). In between, the update is the served definition.
   * The updates table is read before the catalog: {@link #finishUpdate} puts the catalog entry before it
   * deletes the update, so a finish between the two reads still yields the new definition.
   *
   * @throws TransformException.NotFound if the transformation does not exist
   */
  Current current(String tenant, String name) {
    Optional<TransformDefinition> update = updates.get(tenant, name);
    TransformDefinition definition = catalog.get(tenant, name)
        .orElseThrow(() -> new TransformException.NotFound(tenant, name));
    int servedVersion = views.servedVersion(viewName(definition));
    if (update.isEmpty() || update.get().version() <= definition.version()) {
      return new Current(definition, Optional.empty(), servedVersion);
    }
    if (servedVersion >= update.get().version()) {
      return new Current(update.get(), Optional.empty(), servedVersion);
    }
    return new Current(definition, update, servedVersion);
  }

  static ViewName viewName(TransformDefinition definition) {
    return new ViewName(definition.tenant(), definition.name());
  }

  static ViewSchema schema(TransformDefinition definition) {
    return new ViewSchema(definition.columns(), definition.keyColumns());
  }

  /**
   * Stop a transformation's jobs (its served version and any update) and remove it, its view, its
   * subscriptions and its checkpoints.
   *
   * @param tenant the tenant
   * @param name the transformation
   * @return true when it existed
   */
  boolean delete(String tenant, String name) {
    Optional<TransformDefinition> definition = catalog.get(tenant, name);
    if (definition.isEmpty()) {
      return false;
    }
    ViewName viewName = viewName(definition.get());
    Optional<TransformDefinition> update = updates.get(tenant, name);
    update.ifPresent(this::abandonUpdate);
    jobs.cancel(viewName, definition.get().version());
    catalog.delete(tenant, name);
    managed.remove(viewName);
    retiredBelow.remove(viewName);
    views.drop(viewName);
    jobs.forgetView(viewName);
    checkpoints.deleteView(definition.get());
    StreamRef stream = new StreamRef(tenant, definition.get().sourceStream());
    for (int v = 1; v <= definition.get().version(); v++) {
      ledger.deleteSubscription(stream, ViewJobBuilder.subscription(definition.get().withVersion(v)));
    }
    return true;
  }
}
