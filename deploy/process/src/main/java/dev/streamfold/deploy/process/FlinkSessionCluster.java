package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink session cluster as separate processes: one JobManager
 * ({@code org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint}) and TaskManagers
 * ({@code org.apache.flink.runtime.taskexecutor.TaskManagerRunner}), each its own JVM, all on loopback with
 * free ports. {@code flink-dist} is not on Maven Central, but both entry points are in {@code flink-runtime};
 * the processes run with the class path the caller gives (which must hold {@code flink-runtime} and the job
 * classes, as a Flink distribution's {@code lib/} would).
 */
public final class FlinkSessionCluster implements AutoCloseable {
  private static final Pattern TASK_MANAGERS = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)");

  private final Path dir;
  private final String classpath;
  private final int restPort;
  private final ManagedProcess jobManager;
  private final List<ManagedProcess> taskManagers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  private FlinkSessionCluster(Path dir, String classpath, int restPort, ManagedProcess jobManager) {
    this.dir = dir;
    this.classpath = classpath;
    this.restPort = restPort;
    this.jobManager = jobManager;
  }

  /**
   * Start the JobManager and wait until its REST API answers.
   *
   * @param dir directory for the configuration, logs and temporary files
   * @param classpath the class path of the cluster's JVMs
   * @param slots task slots per TaskManager
   * @return the cluster, without TaskManagers yet
   * @throws IllegalStateException if the JobManager does not come up within 2 minutes (the message quotes its log)
   */
  public static FlinkSessionCluster start(Path dir, String classpath, int slots) {
    int restPort = FreePorts.pick();
    int rpcPort = FreePorts.pick();
    try {
      Files.createDirectories(dir.resolve("conf"));
      Files.createDirectories(dir.resolve("tmp"));
      Files.writeString(dir.resolve("conf/flink-conf.yaml"), String.join("\n",
          "jobmanager.rpc.address: 127.0.0.1",
          "jobmanager.rpc.port: " + rpcPort,
          "jobmanager.bind-host: 127.0.0.1",
          "jobmanager.memory.process.size: 768m",
          "rest.address: 127.0.0.1",
          "rest.bind-address: 127.0.0.1",
          "rest.port: " + restPort,
          "taskmanager.host: 127.0.0.1",
          "taskmanager.bind-host: 127.0.0.1",
          "taskmanager.numberOfTaskSlots: " + slots,
          // a killed TaskManager is noticed within seconds, not the default 50 s
          "heartbeat.interval: 1000",
          "heartbeat.timeout: 5000",
          "classloader.parent-first-patterns.additional: dev.streamfold.transforms.fold.",
          "io.tmp.dirs: " + dir.resolve("tmp").toAbsolutePath(),
          ""));
      // Log4j 2 to the process output (the log files of ManagedProcess), INFO and up.
      Files.writeString(dir.resolve("conf/log4j-console.properties"), String.join("\n",
          "rootLogger.level = INFO",
          "rootLogger.appenderRef.console.ref = console",
          "appender.console.type = Console",
          "appender.console.name = console",
          "appender.console.layout.type = PatternLayout",
          "appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
          ""));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Flink configuration under " + dir, e);
    }
    ManagedProcess jm = ManagedProcess.start("flink-jobmanager", command(classpath, "768m",
        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", dir), dir,
        dir.resolve("jobmanager.log"));
    FlinkSessionCluster cluster = new FlinkSessionCluster(dir, classpath, restPort, jm);
    jm.awaitReady(Duration.ofMinutes(2), () -> cluster.taskManagersRegistered() >= 0);
    return cluster;
  }

  /**
   * A TaskManager started without Flink's scripts needs its resources as dynamic properties, which the
   * scripts compute with {@code BashJavaUtils} and pass as {@code -D key=value}: in the configuration file
   * they are not enough ({@code TaskExecutorResourceUtils} checks the dynamic ones).
   */
  private static final List<String> TASK_MANAGER_RESOURCES = List.of(
      "taskmanager.cpu.cores=2",
      "taskmanager.memory.framework.heap.size=128m",
      "taskmanager.memory.framework.off-heap.size=128m",
      "taskmanager.memory.task.heap.size=384m",
      "taskmanager.memory.task.off-heap.size=0m",
      "taskmanager.memory.managed.size=128m",
      "taskmanager.memory.network.min=64m",
      "taskmanager.memory.network.max=64m",
      "taskmanager.memory.jvm-metaspace.size=256m",
      "taskmanager.memory.jvm-overhead.min=192m",
      "taskmanager.memory.jvm-overhead.max=192m");

  private static List<String> command(String classpath, String heap, String mainClass, Path dir) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-Dlog4j.configurationFile=" + dir.resolve("conf/log4j-console.properties").toAbsolutePath()));
    // The module openings Flink needs on Java 17 (the tests' own JVM runs with them: surefire's argLine).
    for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
        command.add(arg);
      }
    }
    command.addAll(List.of("-cp", classpath, mainClass, "--configDir", dir.resolve("conf").toAbsolutePath().toString()));
    if (mainClass.endsWith("TaskManagerRunner")) {
      for (String property : TASK_MANAGER_RESOURCES) {
        command.add("-D");
        command.add(property);
      }
    }
    return command;
  }

  /**
   * Start a TaskManager and wait until the JobManager counts it.
   *
   * @return the TaskManager process
   * @throws IllegalStateException if it does not register within 2 minutes
   */
  public synchronized ManagedProcess startTaskManager() {
    int before = taskManagersRegistered();
    int index = taskManagers.size();
    ManagedProcess tm = ManagedProcess.start("flink-taskmanager-" + index, command(classpath, "768m",
        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", dir), dir,
        dir.resolve("taskmanager-" + index + ".log"));
    taskManagers.add(tm);
    tm.awaitReady(Duration.ofMinutes(2), () -> taskManagersRegistered() > before);
    return tm;
  }

  /**
   * Kill a TaskManager's JVM at once (SIGKILL), as a crashed machine would stop, and wait until the
   * JobManager has noticed (its heartbeat timeout, 5 s here).
   *
   * @throws IllegalStateException if the JobManager still counts it after 60 s
   */
  public void kill(ManagedProcess taskManager) {
    int before = taskManagersRegistered();
    ProcessHandle.of(taskManager.pid()).ifPresent(ProcessHandle::destroyForcibly);
    ProcessHandle.of(taskManager.pid()).ifPresent(h -> h.onExit().join());
    jobManager.awaitReady(Duration.ofSeconds(60), () -> {
      int now = taskManagersRegistered();
      return now >= 0 && now < before;
    });
  }

  /** TaskManagers registered with the JobManager, or -1 when its REST API does not answer. */
  public int taskManagersRegistered() {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort
          + "/overview")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      Matcher m = TASK_MANAGERS.matcher(response.body());
      return response.statusCode() == 200 && m.find() ? Integer.parseInt(m.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The JobManager's REST address, {@code 127.0.0.1:port}. */
  public String restAddress() {
    return "127.0.0.1:" + restPort;
  }

  /** Stop every process. */
  @Override
  public void close() {
    for (ManagedProcess tm : taskManagers) {
      tm.close();
    }
    jobManager.close();
  }
}
