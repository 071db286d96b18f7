package dev.streamfold.transforms.training;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.source.ClockedLedgerSource;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import dev.streamfold.transforms.sql.TableEnvironments;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.MultipleInputTransformation;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * Builds the bounded job of a training set cut by event time, its labels the rows of a file or the events of a stream:
 * <pre>
 * ClockedLedgerSource (ticks 1 .. stop tick, every stream the feature views read, and the label stream)
 *   -&gt; EventTimeOrder (sorted by cut time, a file's rows merged in; ordinals)
 *   -&gt; rows of the table of labels (one per element) -&gt; event projection -----------------------&gt; PointInTimeJoin
 *   -&gt; rows of each stream -&gt; feature view i's SQL -&gt; changelog --------------------------------------^
 *   -&gt; end-of-tick markers, before each group of rows, when a view unions several streams --------------^ (last input)
 * </pre>
 * Parallelism 1 throughout (one channel per input keeps the ordinals' order; one slot keeps the
 * {@link dev.streamfold.transforms.source.TickGate} in one JVM). No checkpoints, no restarts: a failure fails the
 * build and leaves no output file.
 */
final class EventTimeTrainingSetJob {
  private EventTimeTrainingSetJob() {}

  /**
   * What the job reads.
   *
   * @param name the training set's name (job name)
   * @param tenant the tenant whose clock orders the streams
   * @param streams every stream read (the feature views' and the label stream), to its declared columns
   * @param labelTable the name of the table of labels the event projection reads
   * @param labelColumns its columns (the labels', then the label-row flag)
   * @param labels the labels: a file's rows in time order ({@link LabelsFile#writeInTimeOrder}, on the job's machine),
   *     or the label stream's events
   * @param knownAt also cut events by the time the ledger acknowledged them
   * @param scratch a directory on the job's machine for sorted runs
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param stopTick the last tick read
   */
  record Reads(String name, String tenant, Map<String, List<StreamColumn>> streams, String labelTable,
      List<StreamColumn> labelColumns, EventTimeOrder.Labels labels, boolean knownAt, String scratch, String serviceUrl,
      String adminUrl, long stopTick) {}

  /**
   * Build the job graph.
   *
   * @param reads what it reads
   * @param eventProjectionSql the event projection over the table of labels, columns as in {@link TrainingSetPlan}
   * @param featureViews the feature views' definitions (SQL), in the plan's input order
   * @param plan the validated plan; its clock has ticks (and a gate) when some view unions several streams (the joins
   *     of the views' SQL read their inputs in the clock's order: {@link OrderedInputs})
   * @return the job graph, not yet submitted
   */
  static JobGraph build(Reads reads, String eventProjectionSql, List<TransformDefinition> featureViews,
      TrainingSetPlan plan) {
    StreamExecutionEnvironment env = TrainingJobs.environment(reads.name(), plan.clock().gate() != null);
    StreamTableEnvironment tableEnv = TrainingJobs.tableEnvironment(env);
    Set<String> streams = reads.streams().keySet();
    ClockedLedgerSource source = ClockedLedgerSource.builder(reads.serviceUrl(), reads.tenant(), streams)
        .stopAfterTick(reads.stopTick())
        .adminUrl(reads.adminUrl())
        .build();
    Set<String> gated = new java.util.HashSet<>();
    for (int v = 0; v < featureViews.size(); v++) {
      if (plan.clock().tickViews()[v]) {
        gated.addAll(featureViews.get(v).streams());
      }
    }
    EventTimeOrder.Gate gate = plan.clock().gate() == null ? null : new EventTimeOrder.Gate(plan.clock().gate(), gated);
    DataStream<SourceEvent> elements = env.fromSource(source, WatermarkStrategy.noWatermarks(),
            "clock of " + reads.tenant() + " " + streams, TypeInformation.of(SourceEvent.class))
        .transform("event-time order", TypeInformation.of(SourceEvent.class),
            new EventTimeOrder(reads.labels(), reads.knownAt(), gate, reads.scratch(), EventSorter.DEFAULT_BUFFER_BYTES));
    TrainingJobs.registerStreams(tableEnv, elements, reads.streams(),
        featureViews.stream().map(TransformDefinition::sql).toList());
    PayloadParser labelParser = new PayloadParser(reads.labelColumns());
    String labelsOf = reads.labels().labelsOf(reads.knownAt());
    DataStream<Row> labelRows = elements.transform("rows of the " + reads.labelTable(), labelParser.ledgerClockRowType(),
        new LabelTableRows(labelParser, labelsOf, reads.labelColumns().size() - 1));
    tableEnv.createTemporaryView(TableEnvironments.quote(reads.labelTable()), labelRows, labelParser.ledgerClockSchema());

    MultipleInputTransformation<Void> join = new MultipleInputTransformation<>("point-in-time join",
        new PointInTimeJoinFactory(plan), Types.VOID, 1);
    join.addInput(tableEnv.toDataStream(tableEnv.sqlQuery(eventProjectionSql)).getTransformation());
    for (TransformDefinition view : featureViews) {
      join.addInput(tableEnv.toChangelogStream(tableEnv.sqlQuery(view.sql())).getTransformation());
    }
    if (plan.clock().ticks()) {
      join.addInput(elements.flatMap(new TrainingJobs.TickEnds()).returns(Types.ROW(Types.LONG)).name("ends of label groups")
          .getTransformation());
    }
    return TrainingJobs.jobGraph(env, join, plan);
  }
}
