package dev.streamfold.transforms.training;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.job.StreamRows;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.source.SourceEvent;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.sql.TableEnvironments;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.transformations.MultipleInputTransformation;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/** What the training-set jobs that read several streams from one clocked source share. */
final class TrainingJobs {
  private TrainingJobs() {}

  /**
   * The environment of a bounded training job: parallelism 1 (one channel per input keeps the ordinals' order; one slot
   * keeps a {@link dev.streamfold.transforms.source.TickGate} in one JVM), no restarts, and with a gate network buffers
   * flushed every millisecond (the source waits for each marker to reach the join).
   *
   * @param name the training set's name
   * @param gated whether the job waits at a gate
   * @return the environment
   */
  static StreamExecutionEnvironment environment(String name, boolean gated) {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    conf.setString("pipeline.name", "training set " + name);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(1);
    env.setBufferTimeout(gated ? 0 : 100);
    return env;
  }

  /**
   * The table environment of a training job: without mini-batches, and without reusing a sub-plan for two consumers
   * (one task feeding both inputs of a join could fill one input's buffers while the join, reading in the clock's order,
   * waits on the other: {@link OrderedInputs}).
   *
   * @param env the job's environment
   * @return its table environment
   */
  static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env) {
    StreamTableEnvironment tableEnv = TableEnvironments.create(env, false);
    tableEnv.getConfig().set(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SUB_PLAN_ENABLED, false);
    return tableEnv;
  }

  /**
   * Register, for every stream the queries read, a table of its rows on the clock set upstream (the elements'
   * ordinals), parsing only the columns the queries read.
   *
   * @param tableEnv where the tables go
   * @param elements the clocked elements
   * @param streams every stream that may be read, to its declared columns
   * @param queries the SQL run over them
   */
  static void registerStreams(StreamTableEnvironment tableEnv, DataStream<SourceEvent> elements,
      Map<String, List<StreamColumn>> streams, List<String> queries) {
    Map<String, Set<String>> columnsRead = new HashMap<>();
    for (String query : queries) {
      SqlPlanner.PlannedQuery planned = SqlPlanner.analyze(query, streams, SqlPlanner.Rows.LEDGER_CLOCK);
      for (String stream : planned.streams()) {
        columnsRead.computeIfAbsent(stream, s -> new HashSet<>()).addAll(planned.columnsRead(stream));
      }
    }
    for (Map.Entry<String, Set<String>> read : columnsRead.entrySet()) {
      PayloadParser parser = new PayloadParser(streams.get(read.getKey()), read.getValue());
      DataStream<Row> rows = elements.transform("rows of " + read.getKey(), parser.ledgerClockRowType(),
          StreamRows.ledgerClock(read.getKey(), parser));
      tableEnv.createTemporaryView(TableEnvironments.quote(read.getKey()), rows, parser.ledgerClockSchema());
    }
  }

  /**
   * Add the point-in-time join and its end, and build the job graph with the joins of the views' SQL reading their
   * inputs in the clock's order ({@link OrderedInputs}).
   *
   * @param env the job's environment, every input of the join added
   * @param join the point-in-time join
   * @param plan its plan: with a gate, views that union streams may merge channels
   * @return the job graph, not yet submitted
   * @throws IllegalStateException as {@link OrderedInputs#apply}
   */
  static JobGraph jobGraph(StreamExecutionEnvironment env, MultipleInputTransformation<Void> join,
      TrainingSetPlan plan) {
    env.addOperator(join);
    new DataStream<>(env, join).sinkTo(new DiscardingSink<>()).name("end");
    JobGraph graph = env.getStreamGraph().getJobGraph();
    OrderedInputs.apply(graph, TrainingJobs.class.getClassLoader(), join.getName(), plan.clock().gate() != null);
    return graph;
  }

  /** An end-of-tick marker as a row of its number; other elements give nothing (watermarks pass on). */
  static final class TickEnds implements FlatMapFunction<SourceEvent, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(SourceEvent event, Collector<Row> out) {
      if (event.endOfTick) {
        out.collect(Row.of(event.tick));
      }
    }
  }
}
