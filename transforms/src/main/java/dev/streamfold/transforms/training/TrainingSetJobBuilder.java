package dev.streamfold.transforms.training;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.job.FoldStage;
import dev.streamfold.transforms.job.PositionTracker;
import dev.streamfold.transforms.job.ReplayBound;
import dev.streamfold.transforms.source.EventConverter;
import dev.streamfold.transforms.source.LedgerOrderMerge;
import dev.streamfold.transforms.source.LedgerSource;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.sql.TableEnvironments;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.transformations.MultipleInputTransformation;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * Builds the bounded job of a training set:
 * <pre>
 * LedgerSource (earliest .. stop) -&gt; PositionTracker (range, ledger clock)
 *   -&gt; event projection (entity, label, is_label, event time, message ID, join keys) ---------&gt; PointInTimeJoin -&gt; file
 *   -&gt; feature view 1's SQL (same SQL as its view job, no mini-batches) -&gt; changelog ------^
 *   -&gt; feature view 2's SQL ... ------------------------------------------------------------^
 *   -&gt; PositionTracker (events, ledger clock) -&gt; Java transformation's fold ({@link FoldStage}) --^
 * </pre>
 * Everything runs with parallelism 1: the ledger clock needs one channel per input (see
 * {@link PointInTimeJoin}). The job does not checkpoint or restart: a failure fails the export and
 * leaves no output file.
 */
public final class TrainingSetJobBuilder {
  private TrainingSetJobBuilder() {}

  /**
   * Build the job graph.
   *
   * @param name the training set's name (job name)
   * @param stream the label stream's name (the SQL table name)
   * @param streamColumns its declared columns
   * @param topic its Pulsar topic
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param eventProjectionSql the event projection over the stream, columns as in {@link TrainingSetPlan}
   * @param featureViews the feature views' definitions, in the plan's input order
   * @param subscription the Pulsar subscription to read on (delete it when the export ends)
   * @param bound the range of events applied (the label events and the feature history)
   * @param partitions the label stream's partitions (0: unpartitioned); a partitioned stream's events are
   *     merged back into sequence-id order ({@link LedgerOrderMerge}) before
   *     the ledger clock
   * @param readThrough the last message ID the source reads, per partition read
   * @param plan the validated plan
   * @return the job graph, not yet submitted
   */
  public static JobGraph build(String name, String stream, List<StreamColumn> streamColumns, String topic,
      int partitions, String serviceUrl, String adminUrl, String eventProjectionSql,
      List<TransformDefinition> featureViews, String subscription, ReplayBound bound, List<MessageId> readThrough,
      TrainingSetPlan plan) {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    conf.setString("pipeline.name", "training set " + name);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(1);
    StreamTableEnvironment tableEnv = TableEnvironments.create(env, false);

    List<String> sql = new java.util.ArrayList<>(List.of(eventProjectionSql));
    featureViews.stream().filter(v -> !v.isFold()).forEach(v -> sql.add(v.sql()));
    java.util.Set<String> columnsRead = new java.util.HashSet<>();
    for (String query : sql) {
      columnsRead.addAll(SqlPlanner.analyze(query, stream, streamColumns, SqlPlanner.Rows.LEDGER_CLOCK).columnsRead());
    }
    PayloadParser parser = new PayloadParser(streamColumns, columnsRead);
    List<String> topics = partitions == 0 ? List.of(topic)
        : readThrough.stream().map(id -> topic + "-partition-" + id.partition()).toList();
    Source<SourceEvent, ?, ?> source = LedgerSource.builder(serviceUrl, adminUrl, subscription, topics)
        .startAt(bound.startId() == null ? PositionVector.EMPTY : PositionVector.parse(bound.startId()))
        .stopAfter(readThrough)
        .build();
    DataStream<SourceEvent> read = env.fromSource(source, WatermarkStrategy.noWatermarks(), LedgerSource.name(topics),
        TypeInformation.of(SourceEvent.class));
    if (partitions > 0) {
      read = read.transform("ledger order", TypeInformation.of(SourceEvent.class),
          new LedgerOrderMerge(readThrough));
    }
    SingleOutputStreamOperator<Row> rows = read
        .transform("position + ledger clock", parser.ledgerClockRowType(), new PositionTracker<>(parser, bound, true));
    tableEnv.createTemporaryView(TableEnvironments.quote(stream), rows, parser.ledgerClockSchema());

    DataStream<Row> eventsOut = tableEnv.toDataStream(tableEnv.sqlQuery(eventProjectionSql));
    MultipleInputTransformation<Void> join = new MultipleInputTransformation<>("point-in-time join",
        new PointInTimeJoinFactory(plan), Types.VOID, 1);
    join.addInput(eventsOut.getTransformation());
    DataStream<SourceEvent> events = null;
    for (TransformDefinition view : featureViews) {
      DataStream<Row> changes;
      if (view.isFold()) {
        if (events == null) { // Java transformations read whole events, on the same ledger clock
          events = read.transform("position + ledger clock (events)", TypeInformation.of(SourceEvent.class),
                  new PositionTracker<>(EventConverter.EVENTS, bound, true));
        }
        changes = FoldStage.changelog(events, view, 1, "-" + view.name());
      } else {
        changes = tableEnv.toChangelogStream(tableEnv.sqlQuery(view.sql()));
      }
      join.addInput(changes.getTransformation());
    }
    env.addOperator(join);
    new DataStream<>(env, join).sinkTo(new DiscardingSink<>()).name("end");
    return env.getStreamGraph().getJobGraph();
  }
}
