package dev.streamfold.cli;

import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ListVirtualStatesRequest;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import dev.streamfold.core.ClockPosition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code streamfold view get|info|list|drop}: read a row or a view's metadata through the query-service's
 * RESP port; list views and virtual states, drop a virtual state (gRPC).
 */
@Command(name = "view", mixinStandardHelpOptions = true, description = "Read materialized views (through the query-service, like any Redis client);"
    + " list views and virtual states; drop virtual states.",
    subcommands = {ViewCommand.Get.class, ViewCommand.Info.class, ViewCommand.ListViews.class, ViewCommand.Drop.class})
final class ViewCommand {

  @Command(name = "get", description = "Read one row of a view: HGETALL <view>:<key> over RESP.")
  static final class Get implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--resp", paramLabel = "HOST:PORT",
        description = "RESP address of the query-service (default: the local stack's).")
    String resp;

    @Parameters(index = "0", paramLabel = "VIEW", description = "View (transformation) or virtual state name"
        + " (e.g. delays@12:5:-1:4).")
    String view;

    @Parameters(index = "1", paramLabel = "KEY", description = "Row key as stored: the key columns' values joined"
        + " with '|', each value with '\\' written '\\\\' and '|' written '\\|', SQL NULL as '\\N' (README, \"Row keys\").")
    String key;

    @Override
    public Integer call() {
      try (RespViews views = server.respViews(resp)) {
        Map<String, String> row = views.row(view, key);
        if (row.isEmpty()) {
          try {
            views.info(view);
          } catch (RespException.ErrorReply noView) {
            throw new CliException(noView.getMessage());
          }
          String escaping = key.contains("|") || key.contains("\\")
              ? "; a row key escapes each key value: '\\' as '\\\\', '|' as '\\|', NULL as '\\N', so the one-column"
                  + " value a|b is the key a\\|b and the two values (a, b) the key a|b" : "";
          throw new CliException("no row " + view + ":" + key + " (no such key in the view" + escaping
              + "; list keys with: redis-cli -p " + server.respAddress(resp)[1] + " --user " + server.tenant
              + " -a <token> SCAN 0 MATCH '" + view + ":*' COUNT 1000)");
        }
        System.out.println(view + ":" + key);
        int width = row.keySet().stream().mapToInt(String::length).max().orElse(0);
        row.forEach((column, value) -> System.out.printf("  %-" + width + "s  %s%n", column, value));
      }
      return 0;
    }
  }

  @Command(name = "info", description = "Show a view's phase, position, events applied, backfill target, "
      + "lag in events, last commit and rollback, or a virtual state's source view, version, cursors and progress:"
      + " VIEW.INFO <name> over RESP.")
  static final class Info implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--resp", paramLabel = "HOST:PORT",
        description = "RESP address of the query-service (default: the local stack's).")
    String resp;

    @Parameters(index = "0", paramLabel = "VIEW", description = "View (transformation) or virtual state name.")
    String view;

    @Override
    public Integer call() {
      try (RespViews views = server.respViews(resp)) {
        Map<String, String> info;
        try {
          info = views.info(view);
        } catch (RespException.ErrorReply e) {
          throw new CliException(e.getMessage());
        }
        int width = info.keySet().stream().mapToInt(String::length).max().orElse(0);
        info.forEach((field, value) -> System.out.printf("%-" + width + "s  %s%n", field, value));
      }
      return 0;
    }
  }

  @Command(name = "list", description = "List the views and virtual states of a tenant: kind, phase, position,"
      + " events applied, rows.")
  static final class ListViews implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        List<String[]> lines = new ArrayList<>();
        for (Transform t : client.transforms().list(ListTransformsRequest.newBuilder().setTenant(server.tenant).build())
            .getTransformsList()) {
          lines.add(line(client.transforms().status(TransformCommand.request(server.tenant, t.getName()))));
        }
        for (VirtualState v : client.replays().listVirtualStates(ListVirtualStatesRequest.newBuilder()
            .setTenant(server.tenant).build()).getStatesList()) {
          lines.add(line(v));
        }
        if (lines.isEmpty()) {
          System.out.println("No views in tenant " + server.tenant + ".");
          return 0;
        }
        print(lines);
      }
      return 0;
    }

    static String[] line(ViewStatus s) {
      String notes = "v" + s.getVersion() + (s.getServedVersion() > 0 && s.getServedVersion() != s.getVersion()
          ? " (serving v" + s.getServedVersion() + ")" : "");
      if (s.hasUpdate()) {
        notes += "; updating to v" + s.getUpdate().getVersion() + " " + s.getUpdate().getPhase();
      }
      if (!s.getRolledBackTo().isEmpty()) {
        notes += "; ROLLED BACK to " + s.getRolledBackTo();
      }
      return new String[] {s.getView(), "view", s.getPhase(), position(s.getPositionList(), s.getClockPosition()),
          events(s.getEventsApplied(), s.getBackfillTargetEvents(), !s.getPhase().equals("BACKFILLING")),
          String.format("%,d", s.getRows()), notes};
    }

    static String[] line(VirtualState v) {
      String notes = "of " + v.getSourceView() + " v" + v.getTransformVersion() + ", "
          + (v.getFullHistory() ? "earliest" : v.getStart()) + " .. " + v.getStop()
          + (v.getFullHistory() ? "" : " (not full history)")
          + (v.getRolledBackViewsCount() > 0 ? "; serves " + String.join(",", v.getRolledBackViewsList()) : "")
          + (v.getError().isEmpty() ? "" : "; error: " + v.getError());
      return new String[] {v.getName(), "virtual", v.getPhase(), position(v.getPositionList(), v.getClockPosition()),
          events(v.getEventsApplied(), v.getTargetEvents(), v.getPhase().equals("COMPLETE")),
          String.format("%,d", v.getRows()), notes};
    }

    /** A view's message-ID position, or a view over several streams' tick ({@code tick:17}). */
    private static String position(List<String> position, String clockPosition) {
      if (!clockPosition.isEmpty()) {
        return "tick:" + ClockPosition.parse(clockPosition).tick();
      }
      return position.isEmpty() ? "-" : String.join(",", position);
    }

    private static String events(long applied, long target, boolean done) {
      return done ? String.format("%,d", applied) : String.format("%,d/%,d", applied, target);
    }

    private static void print(List<String[]> lines) {
      String[] header = {"NAME", "KIND", "PHASE", "POSITION", "EVENTS", "ROWS", "NOTES"};
      int[] width = new int[header.length];
      List<String[]> all = new ArrayList<>();
      all.add(header);
      all.addAll(lines);
      for (String[] l : all) {
        for (int i = 0; i < l.length; i++) {
          width[i] = Math.max(width[i], l[i].length());
        }
      }
      for (String[] l : all) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < l.length; i++) {
          boolean right = i == 4 || i == 5;
          out.append(String.format("%" + (right ? "" : "-") + width[i] + "s", l[i])).append(i + 1 < l.length ? "  " : "");
        }
        System.out.println(out.toString().stripTrailing());
      }
    }
  }

  @Command(name = "drop", description = "Remove a virtual state (stopping its replay if it still runs). Views are"
      + " removed with `streamfold transform delete`.")
  static final class Drop implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Virtual state name, e.g. delays@12:5:-1:4.")
    String name;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        try {
          client.replays().dropVirtualState(VirtualStateRequest.newBuilder().setTenant(server.tenant).setName(name).build());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() == Status.Code.NOT_FOUND && isView(client)) {
            throw new CliException("'" + name + "' is a view, not a virtual state: remove it with"
                + " `streamfold transform delete " + name + "`");
          }
          throw e;
        }
        System.out.println("Dropped virtual state " + server.tenant + "/" + name + ".");
      }
      return 0;
    }

    private boolean isView(StreamfoldClient client) {
      try {
        client.transforms().get(TransformCommand.request(server.tenant, name));
        return true;
      } catch (StatusRuntimeException e) {
        return false;
      }
    }
  }
}
