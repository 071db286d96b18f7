package dev.streamfold.transforms.runtime;

import dev.streamfold.transforms.TransformException;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * Where view jobs run: the embedded MiniCluster (the default), or a Flink session cluster reached over its
 * REST API. The job graphs are the same either way; only submission differs.
 */
public interface FlinkCluster extends AutoCloseable {

  /** Submit a job; completes when the cluster accepted it. */
  CompletableFuture<?> submitJob(JobGraph graph);

  /** Cancel a job; completes when the cancellation was accepted. */
  CompletableFuture<?> cancelJob(JobID id);

  /** The result of a job, when it reaches a terminal state. */
  CompletableFuture<JobResult> requestJobResult(JobID id);

  /** The job's current status. */
  CompletableFuture<JobStatus> getJobStatus(JobID id);

  /**
   * Trigger a checkpoint of a running job now (besides the periodic ones); completes when it is done.
   * Fails, e.g., when the job is not running any more or a checkpoint was declined.
   */
  CompletableFuture<?> triggerCheckpoint(JobID id);

  /** What the cluster is, for logs and errors. */
  String describe();

  @Override
  void close() throws Exception;

  /** The embedded MiniCluster. */
  static FlinkCluster embedded(MiniCluster cluster) {
    return new FlinkCluster() {
      @Override
      public CompletableFuture<?> submitJob(JobGraph graph) {
        return cluster.submitJob(graph);
      }

      @Override
      public CompletableFuture<?> cancelJob(JobID id) {
        return cluster.cancelJob(id);
      }

      @Override
      public CompletableFuture<JobResult> requestJobResult(JobID id) {
        return cluster.requestJobResult(id);
      }

      @Override
      public CompletableFuture<JobStatus> getJobStatus(JobID id) {
        return cluster.getJobStatus(id);
      }

      @Override
      public CompletableFuture<?> triggerCheckpoint(JobID id) {
        return cluster.triggerCheckpoint(id);
      }

      @Override
      public String describe() {
        return "the embedded Flink MiniCluster";
      }

      @Override
      public void close() throws Exception {
        cluster.close();
      }
    };
  }

  /**
   * A Flink session cluster's REST API ({@code RestClusterClient}, as {@code flink run} uses). User jars of
   * a job graph (Java transformations) are uploaded with it; Streamfold's own job classes must be on the
   * cluster's class path (its {@code lib/} directory).
   *
   * @param address the JobManager's REST address, {@code host:port}
   * @return the cluster
   * @throws TransformException if the client cannot be created
   */
  static FlinkCluster remote(String address) {
    int colon = address.lastIndexOf(':');
    Configuration conf = new Configuration();
    conf.set(RestOptions.ADDRESS, address.substring(0, colon));
    conf.set(RestOptions.PORT, Integer.parseInt(address.substring(colon + 1)));
    RestClusterClient<StandaloneClusterId> client;
    try {
      client = new RestClusterClient<>(conf, StandaloneClusterId.getInstance());
    } catch (Exception e) {
      throw new TransformException("cannot create a REST client of the Flink cluster at " + address + ": "
          + e.getMessage(), e);
    }
    return new FlinkCluster() {
      @Override
      public CompletableFuture<?> submitJob(JobGraph graph) {
        return client.submitJob(graph);
      }

      @Override
      public CompletableFuture<?> cancelJob(JobID id) {
        return client.cancel(id);
      }

      @Override
      public CompletableFuture<JobResult> requestJobResult(JobID id) {
        return client.requestJobResult(id);
      }

      @Override
      public CompletableFuture<JobStatus> getJobStatus(JobID id) {
        return client.getJobStatus(id);
      }

      @Override
      public CompletableFuture<?> triggerCheckpoint(JobID id) {
        return client.triggerCheckpoint(id, org.apache.flink.core.execution.CheckpointType.DEFAULT);
      }

      @Override
      public String describe() {
        return "the Flink session cluster at " + address;
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
