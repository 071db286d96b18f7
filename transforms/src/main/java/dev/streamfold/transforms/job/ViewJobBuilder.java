package dev.streamfold.transforms.job;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.sink.RedisViewSink;
import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.transforms.source.ClockedLedgerSource;
import dev.streamfold.transforms.source.EventConverter;
import dev.streamfold.transforms.source.LedgerSource;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.sql.TableEnvironments;
import dev.streamfold.views.ViewName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

/**
 * Builds the Flink job of one view version, and plans SQL with the very same code before anything runs:
 * <pre>
 * LedgerSource (earliest, unbounded) -&gt; PositionTracker (rows + progress at each barrier)
 *   -&gt; Flink SQL over the stream -&gt; changelog -&gt; ViewChange -&gt; RedisViewSink (parallelism 1)
 *   progress side output ---------------------------------------^
 * </pre>
 */
public final class ViewJobBuilder {

  private ViewJobBuilder() {}

  /**
   * Build the job graph of one view version. The source reads the stream with parallelism
   * {@code min(partitions, parallelism)}, one split per partition.
   *
   * @param spec the job (its definition's version is the one this job fills; its checkpoint directory the
   *     version's retained checkpoints)
   * @param backfillTarget latest position at job start (one message ID per partition holding events), empty
   *     when the stream was empty
   * @param backfillTargetEvents events in the stream at job start; when the job's {@link PositionTracker} has
   *     applied that many it signals {@link BackfillSignals} (the submitter then triggers a checkpoint, so
   *     the LIVE commit does not wait for the next periodic one)
   * @param resumeFrom for a job restored from a checkpoint: the view's committed position (at or before the
   *     checkpoint's); the source starts there, entry included,
   *     and the {@link PositionTracker} drops what it already applied. Empty: start from earliest.
   * @return the job graph, not yet submitted; restore it with {@code allowNonRestoredState}, since
   *     every graph has a new source (the connector's own source state is deliberately not restored)
   */
  public static JobGraph build(ViewJobSpec spec, PositionVector backfillTarget, long backfillTargetEvents,
      PositionVector resumeFrom) {
    TransformDefinition definition = spec.definition();
    Configuration conf = checkpointing(spec.checkpointDir(), spec.checkpointInterval(), true);
    // No Flink restarts: the transform manager resubmits a failed job from its checkpoint with an exact
    // source position (Flink's own restart would resume the Pulsar source after a whole batched entry).
    conf.setString("restart-strategy.type", "none");
    conf.setString("pipeline.name", "view " + definition.tenant() + "/" + definition.name() + " v" + definition.version());
    List<String> topics = spec.partitions() == 0 ? List.of(spec.topic())
        : IntStream.range(0, spec.partitions()).mapToObj(p -> spec.topic() + "-partition-" + p).toList();
    Source<SourceEvent, ?, ?> source = LedgerSource.builder(spec.serviceUrl(), spec.adminUrl(), subscription(definition),
            topics)
        .startAt(resumeFrom)
        .payloadBytes(!definition.isFold())
        .build();
    return assemble(conf, spec, List.of(spec.topic()), sourceParallelism(spec.partitions(), spec.parallelism()), source,
        null, new RedisViewSink(spec.redisUri(), new ViewName(definition.tenant(), definition.name()),
            definition.version(), new ArrayList<>(definition.columns().keySet()), backfillTarget.toString(),
            backfillTargetEvents, false),
        backfillTargetEvents);
  }

  /**
   * Build the bounded job of a replay: the transformation's SQL, exactly as its view job runs it, over a
   * range of the ledger, into version 1 of a virtual state. The source reads up to and including
   * {@code readThrough} and ends; the {@link PositionTracker} applies exactly the events of
   * {@code bound}. The job does not restart on failure (a failed replay is reported, and run again), and
   * its checkpoints are deleted when it ends. Its sink applies each commit to the virtual state itself (at
   * every barrier, for progress, and at the end of input), so the job takes no final checkpoint. A
   * partitioned stream's replay reads only the partitions {@code readThrough} lists.
   *
   * @param spec the job (the transformation version to replay; its checkpoint directory a scratch directory
   *     for this replay, each checkpoint committing progress to the virtual state)
   * @param target the virtual state the rows go to (version 1)
   * @param subscription the Pulsar subscription to read on (delete it when the replay ends)
   * @param bound the exact range applied
   * @param readThrough the last message ID the source reads (at or after the range's end), per partition
   * @param targetEvents events the replay expects to apply (progress; an upper bound for time stops)
   * @return the job graph, not yet submitted
   */
  public static JobGraph buildReplay(ViewJobSpec spec, ViewName target, String subscription, ReplayBound bound,
      List<MessageId> readThrough, long targetEvents) {
    TransformDefinition definition = spec.definition();
    Configuration conf = checkpointing(spec.checkpointDir(), spec.checkpointInterval(), false);
    conf.setString("restart-strategy.type", "none");
    // The bounded sink applies its last commit itself at the end of input, so the job ends with its input
    // instead of waiting up to a checkpoint interval (plus the min pause) for a final checkpoint.
    conf.setString("execution.checkpointing.checkpoints-after-tasks-finish", "false");
    conf.setString("pipeline.name", "replay " + target + " of " + definition.name() + " v" + definition.version());
    // Only partitions with events to read: a bounded split of a partition that has none would never end.
    List<String> topics = spec.partitions() == 0 ? List.of(spec.topic())
        : readThrough.stream().map(id -> spec.topic() + "-partition-" + id.partition()).toList();
    String readThroughText = PositionVector.of(readThrough).toString();
    Source<SourceEvent, ?, ?> source = LedgerSource.builder(spec.serviceUrl(), spec.adminUrl(), subscription, topics)
        .startAt(bound.startId() == null ? PositionVector.EMPTY : PositionVector.parse(bound.startId()))
        .stopAfter(readThrough)
        .payloadBytes(!definition.isFold())
        .build();
    return assemble(conf, spec, topics, sourceParallelism(Math.min(spec.partitions(), topics.size()),
        spec.parallelism()), source, bound, new RedisViewSink(spec.redisUri(), target, 1,
            new ArrayList<>(definition.columns().keySet()), readThroughText, targetEvents, true), -1);
  }

  /**
   * Build the job graph of one version of a view over several streams: one {@link ClockedLedgerSource} reads the
   * streams in the tenant clock's order, a {@link TickTracker} follows the tick, each stream's events become the
   * rows of a table named after it, and the SQL over those tables goes to the sink, which commits at ticks.
   * <pre>
   * ClockedLedgerSource (after a tick, unbounded) -&gt; TickTracker (events + the tick at each barrier)
   *   -&gt; one table per stream -&gt; Flink SQL -&gt; changelog -&gt; ViewChange -&gt; RedisViewSink (parallelism 1)
   *   progress side output -----------------------------------------------------^
   * </pre>
   *
   * @param spec the job; its {@link ViewJobSpec#clockedStreams} are the streams the SQL reads
   * @param backfillTarget the clock's last tick when the version started, with its vectors of the streams read
   *     ({@link ClockPosition#START} when the clock had none); the tracker signals {@link BackfillSignals} when
   *     its marker passes, and the sink makes the version LIVE at the first commit at or after it
   * @param backfillTargetEvents events in the streams read when the version started (progress)
   * @param resumeAfterTick for a job restored from a checkpoint: the view's committed tick (at or before the
   *     checkpoint's); the source starts after it and the tracker drops the ticks it already applied. 0: from the
   *     first tick.
   * @return the job graph, not yet submitted; restore it with {@code allowNonRestoredState}
   */
  public static JobGraph buildClocked(ViewJobSpec spec, ClockPosition backfillTarget, long backfillTargetEvents,
      long resumeAfterTick) {
    TransformDefinition definition = spec.definition();
    Configuration conf = checkpointing(spec.checkpointDir(), spec.checkpointInterval(), true);
    conf.setString("restart-strategy.type", "none"); // as build(): the supervisor restarts from the committed tick
    conf.setString("pipeline.name", "view " + definition.tenant() + "/" + definition.name() + " v" + definition.version());
    return assembleClocked(conf, spec, ClockedLedgerSource.builder(spec.serviceUrl(), definition.tenant(),
            spec.clockedStreams().keySet()).afterTick(resumeAfterTick).payloadBytes(true).adminUrl(spec.adminUrl()).build(),
        backfillTarget.tick(), RedisViewSink.clocked(spec.redisUri(), new ViewName(definition.tenant(), definition.name()),
            definition.version(), new ArrayList<>(definition.columns().keySet()), backfillTarget, backfillTargetEvents));
  }

  /**
   * Build the bounded job of a replay of a view over several streams: its SQL, exactly as its view job runs it,
   * over the events of the clock's ticks 1 to {@code stop}'s, into version 1 of a virtual state. As
   * {@link #buildReplay}: no restarts, checkpoints deleted at the end, the sink applies each commit itself.
   *
   * @param spec the job; its {@link ViewJobSpec#clockedStreams} are the streams the SQL reads
   * @param target the virtual state the rows go to (version 1)
   * @param stop the tick to stop after (its number > 0) and its vectors of the streams read
   * @param targetEvents events the replay may apply at most (progress)
   * @return the job graph, not yet submitted
   */
  public static JobGraph buildClockedReplay(ViewJobSpec spec, ViewName target, ClockPosition stop, long targetEvents) {
    TransformDefinition definition = spec.definition();
    Configuration conf = checkpointing(spec.checkpointDir(), spec.checkpointInterval(), false);
    conf.setString("restart-strategy.type", "none");
    conf.setString("execution.checkpointing.checkpoints-after-tasks-finish", "false");
    conf.setString("pipeline.name", "replay " + target + " of " + definition.name() + " v" + definition.version()
        + " to tick " + stop.tick());
    return assembleClocked(conf, spec, ClockedLedgerSource.builder(spec.serviceUrl(), definition.tenant(),
            spec.clockedStreams().keySet()).stopAfterTick(stop.tick()).payloadBytes(true).build(),
        -1, RedisViewSink.clockedReplay(spec.redisUri(), target, new ArrayList<>(definition.columns().keySet()), stop,
            targetEvents));
  }

  private static JobGraph assembleClocked(Configuration conf, ViewJobSpec spec, Source<SourceEvent, ?, ?> source,
      long signalAtTick, RedisViewSink sink) {
    TransformDefinition definition = spec.definition();
    if (spec.clockedStreams().isEmpty() || definition.isFold()) {
      throw new IllegalArgumentException("a clocked view job runs SQL over the streams of its spec; got "
          + spec.clockedStreams().keySet() + (definition.isFold() ? " and a Java transformation" : ""));
    }
    StreamExecutionEnvironment env = environment(conf, spec.parallelism());
    StreamTableEnvironment tableEnv = tableEnvironment(env, spec.checkpointInterval());
    // as planned when created: rows with _event_time as rowtime attribute when the SQL computes event-time windows
    SqlPlanner.PlannedQuery planned = SqlPlanner.analyze(definition.sql(), spec.clockedStreams(), null);
    boolean eventTime = planned.eventTimeWindows();
    Map<String, Long> windowedDelays = new TreeMap<>(); // late events are counted of the streams a window reads
    planned.windowedStreams().forEach(stream -> windowedDelays.put(stream, spec.clockedWatermarkDelays().get(stream)));
    SingleOutputStreamOperator<SourceEvent> events = env.fromSource(source, WatermarkStrategy.noWatermarks(),
            "clock of " + definition.tenant() + " " + spec.clockedStreams().keySet(), TypeInformation.of(SourceEvent.class))
        .setParallelism(1)
        .uid("clocked-source-" + UUID.randomUUID())
        .transform("position", TypeInformation.of(SourceEvent.class),
            new TickTracker().signalBackfillTargetAt(signalAtTick).countEventsBehindWatermark(windowedDelays))
        .setParallelism(1)
        .uid("position");
    for (String stream : planned.streams()) {
      PayloadParser parser = new PayloadParser(spec.clockedStreams().get(stream), planned.columnsRead(stream));
      DataStream<RowData> rows = events.transform("rows of " + stream, parser.rowDataType(),
              new StreamRows<>(stream, parser.rowDataConverter(),
                  eventTime ? spec.clockedWatermarkDelays().get(stream) : -1))
          .setParallelism(1)
          .uid("rows-" + stream);
      tableEnv.createTemporaryView(TableEnvironments.quote(stream), rows,
          eventTime ? parser.eventTimeSchema() : parser.schema());
    }
    sink(tableEnv.toChangelogStream(tableEnv.sqlQuery(definition.sql())), events.getSideOutput(PositionTracker.PROGRESS),
        definition, sink);
    return env.getStreamGraph().getJobGraph();
  }

  private static StreamExecutionEnvironment environment(Configuration conf, int parallelism) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    // Pass records between chained operators without copies (every operator of this job builds new
    // objects for what it keeps).
    env.getConfig().enableObjectReuse();
    return env;
  }

  private static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env, Duration checkpointInterval) {
    StreamTableEnvironment tableEnv = TableEnvironments.create(env, true);
    // A mini-batch waits at most a quarter of the checkpoint interval (and 200 ms): the bundle is flushed
    // at each barrier anyway, and a longer wait only delays the change past the next commit.
    tableEnv.getConfig().set("table.exec.mini-batch.allow-latency",
        Math.max(10, Math.min(200, checkpointInterval.toMillis() / 4)) + " ms");
    return tableEnv;
  }

  /** The result's changes and the progress, into the sink (one writer: commits in order). */
  private static void sink(DataStream<Row> result, DataStream<ViewChange> progress, TransformDefinition definition,
      RedisViewSink sink) {
    List<String> columns = new ArrayList<>(definition.columns().keySet());
    int[] keyIndexes = definition.keyColumns().stream().mapToInt(columns::indexOf).toArray();
    result.map(new ChangelogToViewChange(keyIndexes))
        .returns(ViewChange.class)
        .name("changelog to view changes")
        .union(progress)
        .sinkTo(sink)
        .setParallelism(1)
        .name("view " + definition.name())
        .uid("view-sink");
  }

  private static Configuration checkpointing(String checkpointDir, Duration checkpointInterval, boolean retain) {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.interval", checkpointInterval.toMillis() + " ms");
    conf.setString("execution.checkpointing.mode", "EXACTLY_ONCE");
    conf.setString("execution.checkpointing.externalized-checkpoint-retention",
        retain ? "RETAIN_ON_CANCELLATION" : "DELETE_ON_CANCELLATION");
    conf.setString("execution.checkpointing.min-pause", Math.min(500, checkpointInterval.toMillis() / 2) + " ms");
    conf.setString("state.checkpoints.dir", checkpointDir);
    conf.setString("state.checkpoints.num-retained", "2");
    conf.setString("state.backend.type", "hashmap");
    return conf;
  }

  /**
   * Parallelism of a stream's source: one reader for an unpartitioned stream, else one per partition up to
   * the job's parallelism (the connector assigns each partition to one reader).
   */
  static int sourceParallelism(int partitions, int parallelism) {
    return partitions <= 1 ? 1 : Math.max(1, Math.min(partitions, parallelism));
  }

  private static JobGraph assemble(Configuration conf, ViewJobSpec spec, List<String> topics, int sourceParallelism,
      Source<SourceEvent, ?, ?> source, ReplayBound bound, RedisViewSink sink, long signalAtEvents) {
    TransformDefinition definition = spec.definition();
    List<StreamColumn> streamColumns = spec.streamColumns();
    int parallelism = spec.parallelism();
    long watermarkDelayMs = spec.watermarkDelayMs();
    Duration checkpointInterval = spec.checkpointInterval();
    StreamExecutionEnvironment env = environment(conf, parallelism);
    StreamTableEnvironment tableEnv = tableEnvironment(env, checkpointInterval);
    DataStream<SourceEvent> read = env.fromSource(source, WatermarkStrategy.noWatermarks(), LedgerSource.name(topics),
            TypeInformation.of(SourceEvent.class))
        .setParallelism(sourceParallelism)
        .uid("ledger-source-" + UUID.randomUUID());
    DataStream<Row> result;
    DataStream<ViewChange> progress;
    if (definition.isFold()) {
      env.getConfig().disableGenericTypes(); // states were checked for Kryo at creation; never fall back
      SingleOutputStreamOperator<SourceEvent> events = read
          .transform("position", TypeInformation.of(SourceEvent.class),
              new PositionTracker<>(EventConverter.EVENTS, bound, false, -1).signalBackfillTargetAt(signalAtEvents))
          .setParallelism(1)
          .uid("position");
      result = FoldStage.changelog(events, definition, parallelism);
      progress = events.getSideOutput(PositionTracker.PROGRESS);
    } else {
      // Parse only the columns the SQL reads, straight into Flink's internal rows (no Row -> RowData
      // conversion in front of the SQL; the source left the payloads as bytes for the parser's scan).
      SqlPlanner.PlannedQuery planned = SqlPlanner.analyze(definition.sql(), definition.sourceStream(), streamColumns, null);
      PayloadParser parser = new PayloadParser(streamColumns, planned.columnsRead());
      boolean eventTime = planned.eventTimeWindows();
      SingleOutputStreamOperator<RowData> rows = read
          .transform("position", parser.rowDataType(),
              new PositionTracker<>(parser.rowDataConverter(), bound, false, eventTime ? watermarkDelayMs : -1)
                  .signalBackfillTargetAt(signalAtEvents))
          .setParallelism(1)
          .uid("position");
      tableEnv.createTemporaryView(TableEnvironments.quote(definition.sourceStream()), rows,
          eventTime ? parser.eventTimeSchema() : parser.schema());
      result = tableEnv.toChangelogStream(tableEnv.sqlQuery(definition.sql()));
      progress = rows.getSideOutput(PositionTracker.PROGRESS);
    }
    sink(result, progress, definition, sink);
    return env.getStreamGraph().getJobGraph();
  }

  /** Pulsar subscription of one view version's source: a new version reads on a new subscription. */
  public static String subscription(TransformDefinition definition) {
    return "streamfold-view-" + definition.name() + "-v" + definition.version();
  }
}
