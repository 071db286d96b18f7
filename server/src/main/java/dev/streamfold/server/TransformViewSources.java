package dev.streamfold.server;

import dev.streamfold.core.MessageId;
import dev.streamfold.query.ViewSources;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewName;
import java.util.Optional;
import java.util.OptionalLong;

/** The query-service's view of the views' source streams, answered by the transformations and their ledger. */
public final class TransformViewSources implements ViewSources {
  private final TransformManager transforms;

  /** @param transforms the server's transformations (not closed here) */
  public TransformViewSources(TransformManager transforms) {
    this.transforms = transforms;
  }

  @Override
  public OptionalLong eventsInSource(ViewName view) {
    return transforms.sourceEvents(view.tenant(), view.view());
  }

  @Override
  public Optional<String> streamOf(ViewName view, MessageId id) {
    return transforms.streamOf(view.tenant(), view.view(), id);
  }
}
