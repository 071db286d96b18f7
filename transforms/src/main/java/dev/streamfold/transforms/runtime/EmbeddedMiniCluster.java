package dev.streamfold.transforms.runtime;

import dev.streamfold.transforms.TransformException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ResourceManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/**
 * The embedded Flink MiniCluster view jobs run on by default: one TaskManager in this JVM, its REST endpoint on
 * a free port of 127.0.0.1, and the memory a view job needs per slot.
 */
public final class EmbeddedMiniCluster {
  private EmbeddedMiniCluster() {}

  /**
   * Start a MiniCluster.
   *
   * @param tmpDir Flink's temporary directory (created when missing)
   * @param taskSlots the TaskManager's slots: the number of jobs (views, updates, replays, training sets) that
   *     run at once with parallelism 1
   * @return the started cluster
   * @throws TransformException if it cannot start
   */
  public static MiniCluster start(Path tmpDir, int taskSlots) {
    try {
      Files.createDirectories(tmpDir);
      Configuration conf = new Configuration();
      conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
      conf.set(RestOptions.BIND_PORT, "0");
      conf.set(CoreOptions.TMP_DIRS, tmpDir.toString());
      conf.set(TaskManagerOptions.NUM_TASK_SLOTS, taskSlots);
      // Window aggregations take managed memory per slot (their record buffers); 2 MiB per slot made
      // them fail ("minBucketMemorySize is not valid"). Reserved lazily, so idle slots cost nothing.
      conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(Math.max(64, 16L * taskSlots)));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(128));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(128));
      // Java transformations' jars get their own (child-first) class loader; the SPI they implement must
      // be the server's copy even if a jar bundles one.
      conf.setString("classloader.parent-first-patterns.additional", "dev.streamfold.transforms.fold.");
      // Match a job's slot requests with the (one, local) TaskManager's free slots at once. Flink's default
      // waits 50 ms to batch requirement changes (FLINK-27921), which only helps clusters that start workers;
      // here it delayed every job start (a view's backfill, each replay) by that much (measured: 78 ms from
      // the JobMaster's registration to the first task deployed, 6-9 ms with no delay).
      conf.set(ResourceManagerOptions.REQUIREMENTS_CHECK_DELAY, Duration.ZERO);
      MiniCluster mini = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
          .setNumTaskManagers(1).setNumSlotsPerTaskManager(taskSlots).build());
      mini.start();
      return mini;
    } catch (Exception e) {
      throw new TransformException("cannot start the embedded Flink MiniCluster: " + e.getMessage(), e);
    }
  }
}
