package dev.streamfold.deploy.local.stack;

import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What runs of a local stack right now.
 *
 * @param dataDir the stack's data directory
 * @param state the state file's content, empty when the stack was never started there
 * @param processes pulsar, redis, server and s3 (in this order, which callers may rely on; the S3 endpoint
 *     starts first and stops last)
 */
public record StackStatus(Path dataDir, Optional<StackState> state, List<ProcessStatus> processes) {

  /**
   * One process of the stack.
   *
   * @param name {@code pulsar}, {@code redis}, {@code server} or {@code s3}
   * @param record the process as started, or null when never started
   * @param running true when that very process is alive (same pid, start time and command line)
   */
  public record ProcessStatus(String name, ProcessRecord record, boolean running) {}

  /**
   * Return one process of the stack.
   *
   * @param name {@code pulsar}, {@code redis}, {@code server} or {@code s3}
   * @return its status
   * @throws IllegalArgumentException if there is no such process
   */
  public ProcessStatus process(String name) {
    return processes.stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no process named '" + name + "' in the local stack"));
  }

  /** True when every process runs. */
  public boolean allRunning() {
    return processes.stream().allMatch(ProcessStatus::running);
  }

  /** True when at least one process runs. */
  public boolean anyRunning() {
    return processes.stream().anyMatch(ProcessStatus::running);
  }

  /** {@code running}, {@code stopped} or {@code partially running}. */
  public String summary() {
    return allRunning() ? "running" : anyRunning() ? "partially running" : "stopped";
  }

  /**
   * Render the status for people: every process with its pid, ports, data directory and log; when everything
   * runs, the endpoints (gRPC, {@code metrics: http://127.0.0.1:PORT/metrics}, S3, RESP).
   *
   * @return lines separated by '\n', ending with a newline
   */
  public String render() {
    StringBuilder text = new StringBuilder();
    text.append("Local stack: ").append(summary()).append(" (data dir ").append(dataDir).append(")\n");
    if (state.isEmpty()) {
      text.append("  never started here: run `streamfold local up`\n");
      return text.toString();
    }
    for (ProcessStatus p : processes) {
      ProcessRecord r = p.record();
      text.append(String.format("  %-7s %-8s", p.name(), p.running() ? "running" : "stopped"));
      if (r == null) {
        text.append(" never started\n");
        continue;
      }
      text.append(" pid ").append(r.pid());
      String ports = r.ports().entrySet().stream()
          .map(e -> e.getKey() + " 127.0.0.1:" + e.getValue()).collect(Collectors.joining(", "));
      if (!ports.isEmpty()) {
        text.append(p.running() ? "  ports " : "  last ports ").append(ports);
      }
      text.append('\n');
      text.append(String.format("  %-16s data %s%n", "", r.dataDir()));
      text.append(String.format("  %-16s log  %s%n", "", r.logFile()));
    }
    StackState s = state.get();
    if (allRunning()) {
      text.append("gRPC API: 127.0.0.1:").append(s.grpcPort()).append('\n');
      if (s.metricsUrl() != null) {
        text.append("metrics: ").append(s.metricsUrl()).append(" (Prometheus text format)\n");
      }
      text.append("S3 endpoint (offloaded ledger segments): ").append(s.s3Endpoint()).append(" bucket ")
          .append(LocalStack.S3_BUCKET).append(", credentials in ")
          .append(Path.of(s.s3().dataDir()).resolve(S3Credentials.FILE_NAME)).append('\n');
      Path adminToken = dev.streamfold.core.AdminToken.file(Path.of(s.server().dataDir()));
      text.append("Admin token (acts for registered tenants and demo; the CLI's default): ").append(adminToken).append('\n');
      text.append("Read a view: redis-cli -p ").append(s.respPort()).append(" -a <tenant token> HGETALL <view>:<key>")
          .append(" (or --user <tenant> -a \"$(cat ").append(adminToken).append(")\")\n");
      text.append("Stop everything: streamfold local down\n");
    } else {
      text.append("Start everything: streamfold local up\n");
    }
    return text.toString();
  }
}
