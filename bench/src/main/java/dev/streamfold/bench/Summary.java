package dev.streamfold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Merge the results files of a run ({@code <results dir>/<n>-<benchmark>.json}) into {@code results.json}
 * (with the machine it ran on and the command) and a Markdown table {@code summary.md}, and print the table.
 * Flags: {@code --results DIR}, {@code --command TEXT} (the command line that ran the benchmarks), {@code --build
 * TEXT} (what was built: commit and uncommitted files).
 */
final class Summary {
  private Summary() {}

  static void main(String[] args) throws IOException {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      flags.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path dir = Path.of(flags.getOrDefault("results", "bench-results"));
    List<JsonNode> parts = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().matches("\\d-.*\\.json")).sorted().toList()) {
        parts.add(Report.JSON.readTree(f.toFile()));
      }
    }
    Map<String, Object> machine = machine();
    machine.put("loadAverageAtStart", flags.getOrDefault("load-start", "?"));
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("machine", machine);
    doc.put("command", flags.getOrDefault("command", ""));
    doc.put("build", flags.getOrDefault("build", "?"));
    doc.put("generatedAtMs", System.currentTimeMillis());
    doc.put("benchmarks", parts);
    Report.JSON.writeValue(dir.resolve("results.json").toFile(), doc);

    StringBuilder md = new StringBuilder();
    md.append("| benchmark | case | figure | ours: median [min..max] | baseline | baseline: median [min..max] | ratio | target |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (JsonNode part : parts) {
      String name = part.path("benchmark").asText();
      if (part.path("rows").isEmpty()) {
        md.append("| ").append(name).append(" | ").append(part.path("details").path("measures").path("what").asText("-"))
            .append(" | | ").append(part.path("details").path("status").asText("no results")).append(" | | | | |\n");
        continue;
      }
      for (JsonNode row : part.path("rows")) {
        md.append("| ").append(name)
            .append(" | ").append(row.path("case").asText())
            .append(" | ").append(row.path("figure").asText())
            .append(" | ").append(cell(row.path("ours")))
            .append(" | ").append(row.path("baselineName").isNull() ? "" : row.path("baselineName").asText())
            .append(" | ").append(row.path("baseline").isNull() ? "" : cell(row.path("baseline")))
            .append(" | ").append(row.path("ratio").isNull() ? "" : String.format("%.2f", row.path("ratio").asDouble()))
            .append(" | ").append(row.path("target").isNull() ? "" : row.path("target").asText()
                + (row.path("targetMet").isNull() ? "" : row.path("targetMet").asBoolean() ? " ✔" : " ✘"))
            .append(" |\n");
      }
    }
    StringBuilder head = new StringBuilder();
    head.append("Machine: ").append(machine.get("cpus")).append(" CPUs (").append(machine.get("cpuModel")).append("), ")
        .append(machine.get("memTotalGiB")).append(" GiB RAM, ").append(machine.get("jdk")).append(", ")
        .append(machine.get("os")).append("; load average at start ").append(machine.get("loadAverageAtStart"))
        .append(", at the end ").append(String.format("%.2f", (Double) machine.get("loadAverageAtSummary"))).append("\n")
        .append("Build: ").append(flags.getOrDefault("build", "?")).append("\n\n");
    Files.writeString(dir.resolve("summary.md"), head + md.toString());
    System.out.println();
    System.out.print(head);
    System.out.print(md);
    System.out.println("\nResults: " + dir.resolve("results.json") + ", table: " + dir.resolve("summary.md"));
  }

  private static String cell(JsonNode s) {
    return Report.num(s.path("median").asDouble()) + " [" + Report.num(s.path("min").asDouble()) + ".."
        + Report.num(s.path("max").asDouble()) + "]";
  }

  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpus", Runtime.getRuntime().availableProcessors());
    m.put("cpuModel", procLine("/proc/cpuinfo", "model name"));
    String mem = procLine("/proc/meminfo", "MemTotal");
    try {
      m.put("memTotalGiB", String.format("%.1f", Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0));
    } catch (NumberFormatException e) {
      m.put("memTotalGiB", "?");
    }
    m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("loadAverageAtSummary", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    return m;
  }

  private static String procLine(String file, String prefix) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(prefix)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return "?";
  }
}
