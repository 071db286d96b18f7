package dev.streamfold.server.metrics;

import dev.streamfold.ledger.Ledger;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-view gauges, read from the views' metadata when Prometheus scrapes (no polling thread), all labelled
 * {@code tenant} and {@code view}:
 * <ul>
 *   <li>{@code streamfold_view_events_applied}: events folded into the version reads see (as VIEW.INFO's
 *       {@code events_applied}; the version being built before the first one is served)
 *   <li>{@code streamfold_view_backfill_target_events}: events in the stream when that version's job started
 *   <li>{@code streamfold_view_lag_events}: events in the source stream now minus events applied (VIEW.INFO's
 *       {@code lag_events})
 *   <li>{@code streamfold_view_last_commit_age_seconds}: time since the version's last commit (absent before
 *       the first)
 *   <li>{@code streamfold_view_rows}: rows in that version
 *   <li>{@code streamfold_view_phase{phase}}: 1 for the version's phase ({@link ViewPhase}), 0 for the others
 * </ul>
 * and, unlabelled, {@code streamfold_view_store_up}: 1 when the views could be read at scrape time, 0 when not (the
 * view store, Redis, did not answer): the per-view gauges are absent then, so alert on this one too.
 */
final class ViewCollector implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(ViewCollector.class);

  /**
   * One view's progress at scrape time.
   *
   * @param tenant tenant name
   * @param view view name
   * @param metadata the metadata of the version reads see
   * @param sourceEvents events in the view's source stream now, or empty when unknown
   */
  record ViewSample(String tenant, String view, ViewMetadata metadata, OptionalLong sourceEvents) {}

  /** Where the views' progress comes from. */
  @FunctionalInterface
  interface Source {
    /** Read every view's progress now; views that cannot be read are left out. */
    List<ViewSample> sample();
  }

  private final Source source;
  private final Clock clock;

  ViewCollector(Source source) {
    this(source, Clock.systemUTC());
  }

  ViewCollector(Source source, Clock clock) {
    this.source = source;
    this.clock = clock;
  }

  /**
   * Read the views of the server's tenants from the transform catalog and the view store.
   *
   * @param ledger lists the tenants
   * @param tenants the tenants whose views this server runs; empty for every tenant of the ledger
   * @param transforms each tenant's views and their source streams' event counts
   * @param views each view's metadata
   * @return the source
   */
  static Source source(Ledger ledger, java.util.Set<String> tenants, TransformManager transforms, ViewStore views) {
    return () -> {
      List<ViewSample> samples = new ArrayList<>();
      for (String tenant : tenants.isEmpty() ? ledger.tenants() : new java.util.TreeSet<>(tenants)) {
        for (TransformDefinition definition : transforms.list(tenant)) {
          try {
            ViewName name = new ViewName(tenant, definition.name());
            Optional<ViewMetadata> metadata = views.metadata(name)
                .or(() -> views.metadata(name, definition.version()));
            metadata.ifPresent(m -> samples.add(new ViewSample(tenant, definition.name(), m,
                transforms.sourceEvents(tenant, definition.name()))));
          } catch (RuntimeException e) {
            if (ViewStore.isRedisFailure(e)) {
              throw e; // the view store is down: no view can be read (streamfold_view_store_up 0)
            }
            LOG.debug("cannot read view {}/{} for metrics: {}", tenant, definition.name(), e.toString());
          }
        }
      }
      return samples;
    };
  }

  @Override
  public MetricSnapshots collect() {
    List<ViewSample> samples;
    boolean up = true;
    try {
      samples = source.sample();
    } catch (RuntimeException e) {
      LOG.warn("cannot read the views for metrics: {}", e.toString());
      samples = List.of();
      up = false;
    }
    GaugeSnapshot storeUp = gauge("streamfold_view_store_up",
        "1 when the views could be read at scrape time, 0 when the view store (Redis) did not answer")
        .dataPoint(point(Labels.EMPTY, up ? 1 : 0)).build();
    GaugeSnapshot.Builder applied = gauge("streamfold_view_events_applied",
        "Events folded into the version of the view that reads see");
    GaugeSnapshot.Builder target = gauge("streamfold_view_backfill_target_events",
        "Events in the source stream when the job of the view's version started (the backfill target)");
    GaugeSnapshot.Builder lag = gauge("streamfold_view_lag_events",
        "Events in the view's source stream not yet folded into the view");
    GaugeSnapshot.Builder age = gauge("streamfold_view_last_commit_age_seconds",
        "Time since the view's last commit");
    GaugeSnapshot.Builder rows = gauge("streamfold_view_rows", "Rows in the view");
    GaugeSnapshot.Builder phase = gauge("streamfold_view_phase",
        "1 for the view's phase (STARTING, BACKFILLING, LIVE, COMPLETE, FAILED), 0 for the others");
    long nowMs = clock.millis();
    for (ViewSample s : samples) {
      ViewMetadata m = s.metadata();
      Labels labels = Labels.of("tenant", s.tenant(), "view", s.view());
      applied.dataPoint(point(labels, m.eventsApplied()));
      target.dataPoint(point(labels, m.backfillTargetEvents()));
      long inSource = s.sourceEvents().isPresent() ? s.sourceEvents().getAsLong() : m.backfillTargetEvents();
      lag.dataPoint(point(labels, Math.max(0, inSource - m.eventsApplied())));
      if (m.updatedAtMs() > 0) {
        age.dataPoint(point(labels, Math.max(0, nowMs - m.updatedAtMs()) / 1000.0));
      }
      rows.dataPoint(point(labels, m.rows()));
      for (ViewPhase p : ViewPhase.values()) {
        phase.dataPoint(point(Labels.of("tenant", s.tenant(), "view", s.view(), "phase", p.name()),
            p == m.phase() ? 1 : 0));
      }
    }
    return MetricSnapshots.of(storeUp, applied.build(), target.build(), lag.build(), age.build(), rows.build(),
        phase.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of("streamfold_view_store_up", "streamfold_view_events_applied", "streamfold_view_backfill_target_events",
        "streamfold_view_lag_events", "streamfold_view_last_commit_age_seconds", "streamfold_view_rows",
        "streamfold_view_phase");
  }

  private static GaugeSnapshot.Builder gauge(String name, String help) {
    return GaugeSnapshot.builder().name(name).help(help);
  }

  private static GaugeDataPointSnapshot point(Labels labels, double value) {
    return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
  }
}
