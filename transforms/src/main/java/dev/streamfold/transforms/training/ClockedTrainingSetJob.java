package dev.streamfold.transforms.training;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.job.FoldStage;
import dev.streamfold.transforms.job.ReplayBound;
import dev.streamfold.transforms.source.ClockedLedgerSource;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.MultipleInputTransformation;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * Builds the bounded job of a training set whose features read other streams than the label stream (or several):
 * <pre>
 * ClockedLedgerSource (ticks 1 .. stop tick, every stream read) -&gt; ClockOrdinals (label stream's range, ordinals)
 *   -&gt; rows of the label stream -&gt; event projection -------------------------------------------&gt; PointInTimeJoin
 *   -&gt; rows of each stream -&gt; feature view i's SQL (its own streams) -&gt; changelog ------------------^
 *   -&gt; events of a Java transformation's stream -&gt; fold ({@link FoldStage}) -&gt; changelog -------------^
 *   -&gt; end-of-tick markers (tick number) ------------------------------------------------------------^ (last input)
 * </pre>
 * Parallelism 1 throughout (one channel per input keeps the ordinals' order; one slot keeps the
 * {@link dev.streamfold.transforms.source.TickGate} in one JVM). The joins of the views' SQL read their inputs in the
 * ordinals' order ({@link OrderedInputs}); the source waits at the gate before each tick only when a view unions
 * streams. No checkpoints, no restarts: a failure fails the build and leaves no output file.
 */
final class ClockedTrainingSetJob {
  private ClockedTrainingSetJob() {}

  /**
   * What the job reads.
   *
   * @param name the training set's name (job name)
   * @param tenant the tenant whose clock orders the streams
   * @param labelStream the label stream's name
   * @param streams every stream read (the label stream's and the feature views') to its declared columns
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param stopTick the last tick read: the one that covers the label stream's stop
   * @param bound the label stream's range (its stop)
   */
  record Reads(String name, String tenant, String labelStream, Map<String, List<StreamColumn>> streams,
      String serviceUrl, String adminUrl, long stopTick, ReplayBound bound) {}

  /**
   * Build the job graph.
   *
   * @param reads what it reads
   * @param eventProjectionSql the event projection over the label stream, columns as in {@link TrainingSetPlan}
   * @param featureViews the feature views' definitions, in the plan's input order
   * @param plan the validated plan, with its {@link TrainingSetPlan.Clocking} ({@code ticks} true)
   * @return the job graph, not yet submitted
   */
  static JobGraph build(Reads reads, String eventProjectionSql, List<TransformDefinition> featureViews,
      TrainingSetPlan plan) {
    StreamExecutionEnvironment env = TrainingJobs.environment(reads.name(), plan.clock().gate() != null);
    StreamTableEnvironment tableEnv = TrainingJobs.tableEnvironment(env);
    List<String> sql = new ArrayList<>(List.of(eventProjectionSql));
    featureViews.stream().filter(v -> !v.isFold()).forEach(v -> sql.add(v.sql()));
    ClockedLedgerSource.Builder source = ClockedLedgerSource.builder(reads.serviceUrl(), reads.tenant(),
            reads.streams().keySet())
        .stopAfterTick(reads.stopTick())
        .adminUrl(reads.adminUrl());
    if (plan.clock().gate() != null) {
      source.gate(plan.clock().gate(), reads.labelStream());
    }
    DataStream<SourceEvent> events = env.fromSource(source.build(), WatermarkStrategy.noWatermarks(),
            "clock of " + reads.tenant() + " " + reads.streams().keySet(), TypeInformation.of(SourceEvent.class))
        .transform("ledger clock (ordinals)", TypeInformation.of(SourceEvent.class),
            new ClockOrdinals(reads.labelStream(), reads.bound()));
    TrainingJobs.registerStreams(tableEnv, events, reads.streams(), sql);

    MultipleInputTransformation<Void> join = new MultipleInputTransformation<>("point-in-time join",
        new PointInTimeJoinFactory(plan), Types.VOID, 1);
    join.addInput(tableEnv.toDataStream(tableEnv.sqlQuery(eventProjectionSql)).getTransformation());
    for (TransformDefinition view : featureViews) {
      DataStream<Row> changes;
      if (view.isFold()) {
        DataStream<SourceEvent> own = events.filter(new OfStream(view.sourceStream())).name("events of " + view.name());
        changes = FoldStage.changelog(own, view, 1, "-" + view.name());
      } else {
        changes = tableEnv.toChangelogStream(tableEnv.sqlQuery(view.sql()));
      }
      join.addInput(changes.getTransformation());
    }
    join.addInput(events.flatMap(new TrainingJobs.TickEnds()).returns(Types.ROW(Types.LONG)).name("ends of ticks").getTransformation());
    return TrainingJobs.jobGraph(env, join, plan);
  }

  /** Keeps one stream's events (watermarks pass on). */
  private record OfStream(String stream) implements FilterFunction<SourceEvent> {
    @Override
    public boolean filter(SourceEvent event) {
      return !event.endOfTick && stream.equals(event.stream);
    }
  }
}
