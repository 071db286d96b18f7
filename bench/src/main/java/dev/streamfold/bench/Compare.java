package dev.streamfold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Compare two runs: {@code BenchMain compare --before DIR --after DIR [--out FILE]}, each DIR holding a
 * {@code results.json} of {@link Summary}. Prints a Markdown table of every row present in both runs (same
 * benchmark, case and figure): ours before and after, the change, and the ratio to the baseline before and
 * after. Rows present in one run only are listed below the table.
 */
final class Compare {
  private Compare() {}

  static void main(String[] args) throws IOException {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      flags.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    if (!flags.containsKey("before") || !flags.containsKey("after")) {
      throw new IllegalArgumentException("usage: compare --before DIR --after DIR [--out FILE]");
    }
    Map<String, JsonNode> before = rows(Path.of(flags.get("before")));
    Map<String, JsonNode> after = rows(Path.of(flags.get("after")));
    StringBuilder md = new StringBuilder();
    md.append("| benchmark | case | figure | before: ours | after: ours | after / before | ratio to baseline before | after |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<String, JsonNode> e : after.entrySet()) {
      JsonNode b = before.get(e.getKey());
      if (b == null) {
        continue;
      }
      JsonNode a = e.getValue();
      double ob = b.path("ours").path("median").asDouble();
      double oa = a.path("ours").path("median").asDouble();
      md.append("| ").append(a.path("benchmark").asText())
          .append(" | ").append(a.path("case").asText())
          .append(" | ").append(a.path("figure").asText())
          .append(" | ").append(Report.num(ob))
          .append(" | ").append(Report.num(oa))
          .append(" | ").append(ob == 0 ? "" : String.format("%.2f", oa / ob))
          .append(" | ").append(ratio(b))
          .append(" | ").append(ratio(a))
          .append(" |\n");
    }
    StringBuilder only = new StringBuilder();
    before.keySet().stream().filter(k -> !after.containsKey(k)).forEach(k -> only.append("- before only: ").append(k).append('\n'));
    after.keySet().stream().filter(k -> !before.containsKey(k)).forEach(k -> only.append("- after only: ").append(k).append('\n'));
    String text = md + (only.length() == 0 ? "" : "\n" + only);
    if (flags.containsKey("out")) {
      Files.writeString(Path.of(flags.get("out")), text);
    }
    System.out.print(text);
  }

  private static String ratio(JsonNode row) {
    return row.path("ratio").isNull() || row.path("ratio").isMissingNode() ? ""
        : String.format("%.2f", row.path("ratio").asDouble());
  }

  /** Rows of a results.json by "benchmark | case | figure | baseline" (the first of duplicates wins). */
  private static Map<String, JsonNode> rows(Path dir) throws IOException {
    JsonNode doc = Report.JSON.readTree(dir.resolve("results.json").toFile());
    Map<String, JsonNode> rows = new LinkedHashMap<>();
    for (JsonNode part : doc.path("benchmarks")) {
      for (JsonNode row : part.path("rows")) {
        String key = row.path("benchmark").asText() + " | " + row.path("case").asText() + " | "
            + row.path("figure").asText() + " | " + row.path("baselineName").asText("");
        rows.putIfAbsent(key, row);
      }
    }
    return rows;
  }
}
