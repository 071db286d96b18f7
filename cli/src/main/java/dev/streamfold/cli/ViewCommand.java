package dev.streamfold.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold view get VIEW KEY}: read a row through the query-service's RESP port. */
@Command(name = "view", mixinStandardHelpOptions = true, description = "Read materialized views (through the query-service, like any Redis client).",
    subcommands = {ViewCommand.Get.class, ViewCommand.Info.class})
final class ViewCommand {

  @Command(name = "get", description = "Read one row of a view: HGETALL <view>:<key> over RESP.")
  static final class Get implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--resp", paramLabel = "HOST:PORT",
        description = "RESP address of the query-service (default: the local stack's).")
    String resp;

    @Parameters(index = "0", paramLabel = "VIEW", description = "View (transformation) name.")
    String view;

    @Parameters(index = "1", paramLabel = "KEY", description = "Row key (multi-column keys joined with '|').")
    String key;

    @Override
    public Integer call() {
      if (!server.tenant.equals("demo")) {
        System.err.println("note: the query-service serves its default tenant (demo) to every connection;"
            + " per-tenant tokens come later, so --tenant does not select what is read here");
      }
      String[] address = server.respAddress(resp);
      try (RespViews views = RespViews.connect(address[0], Integer.parseInt(address[1]))) {
        Map<String, String> row = views.row(view, key);
        if (row.isEmpty()) {
          try {
            views.info(view);
          } catch (io.lettuce.core.RedisCommandExecutionException noView) {
            throw new CliException(noView.getMessage());
          }
          throw new CliException("no row " + view + ":" + key + " (no such key in the view; list keys with: redis-cli -p "
              + address[1] + " SCAN 0 MATCH " + view + ":* COUNT 1000)");
        }
        System.out.println(view + ":" + key);
        int width = row.keySet().stream().mapToInt(String::length).max().orElse(0);
        row.forEach((column, value) -> System.out.printf("  %-" + width + "s  %s%n", column, value));
      }
      return 0;
    }
  }

  @Command(name = "info", description = "Show a view's phase, position, events applied, backfill target, "
      + "lag in events and last commit: VIEW.INFO <view> over RESP.")
  static final class Info implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--resp", paramLabel = "HOST:PORT",
        description = "RESP address of the query-service (default: the local stack's).")
    String resp;

    @Parameters(index = "0", paramLabel = "VIEW", description = "View (transformation) name.")
    String view;

    @Override
    public Integer call() {
      String[] address = server.respAddress(resp);
      try (RespViews views = RespViews.connect(address[0], Integer.parseInt(address[1]))) {
        Map<String, String> info;
        try {
          info = views.info(view);
        } catch (io.lettuce.core.RedisCommandExecutionException e) {
          throw new CliException(e.getMessage());
        }
        int width = info.keySet().stream().mapToInt(String::length).max().orElse(0);
        info.forEach((field, value) -> System.out.printf("%-" + width + "s  %s%n", field, value));
      }
      return 0;
    }
  }
}
