package dev.streamfold.cli;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateStreamResponse;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold stream create|list}. */
@Command(name = "stream", mixinStandardHelpOptions = true, description = "Create and list streams (named sequences of events in a tenant's ledger).",
    subcommands = {StreamCommand.Create.class, StreamCommand.ListStreams.class})
final class StreamCommand {

  @Command(name = "create", description = "Create a stream with declared columns (idempotent for the same columns).")
  static final class Create implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Stream name.")
    String name;

    @Option(names = {"--column", "-c"}, paramLabel = "NAME:TYPE", split = ",",
        description = "A payload column for SQL, e.g. delay:INT (types: STRING, BOOLEAN, INT, BIGINT, DOUBLE,"
            + " TIMESTAMP); repeat or separate with commas.")
    List<String> columns = new ArrayList<>();

    @Option(names = "--watermark-delay", paramLabel = "DURATION", defaultValue = "0s",
        description = "Bounded out-of-orderness of event times for event-time windows, e.g. 0s, 500ms, 5s, 2m"
            + " (default: ${DEFAULT-VALUE}); fixed at creation.")
    String watermarkDelay;

    @Override
    public Integer call() {
      List<Column> parsed = parseColumns(columns);
      long delayMs = dev.streamfold.ledger.Durations.parseMs(watermarkDelay);
      try (StreamfoldClient client = server.connect()) {
        CreateStreamResponse response = client.admin().createStream(CreateStreamRequest.newBuilder()
            .setTenant(server.tenant).setName(name).addAllColumns(parsed).setWatermarkDelayMs(delayMs).build());
        StreamInfo s = response.getStream();
        System.out.println((response.getCreated() ? "Created" : "Exists:") + " stream " + s.getTenant() + "/"
            + s.getName() + " (" + s.getTopic() + ") columns " + columns(s)
            + (s.getWatermarkDelayMs() > 0 ? ", watermark delay " + s.getWatermarkDelayMs() + " ms" : ""));
      }
      return 0;
    }
  }

  @Command(name = "list", description = "List the streams of a tenant with their event counts.")
  static final class ListStreams implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        List<StreamInfo> streams = client.admin()
            .listStreams(ListStreamsRequest.newBuilder().setTenant(server.tenant).build()).getStreamsList();
        if (streams.isEmpty()) {
          System.out.println("No streams in tenant " + server.tenant + ".");
          return 0;
        }
        System.out.printf("%-24s %12s  %-24s %s%n", "STREAM", "EVENTS", "LATEST MESSAGE ID", "COLUMNS");
        for (StreamInfo s : streams) {
          System.out.printf("%-24s %,12d  %-24s %s%n", s.getName(), s.getEventCount(),
              s.getLatestMessageId().isEmpty() ? "-" : s.getLatestMessageId(), columns(s));
        }
      }
      return 0;
    }
  }

  /**
   * Parse {@code name:TYPE} column declarations.
   *
   * @param specs the declarations
   * @return the columns, types upper-cased
   * @throws CliException if one is not {@code name:TYPE}
   */
  static List<Column> parseColumns(List<String> specs) {
    List<Column> result = new ArrayList<>();
    for (String spec : specs) {
      int colon = spec.indexOf(':');
      if (colon <= 0 || colon == spec.length() - 1) {
        throw new CliException("--column must be NAME:TYPE (e.g. delay:INT), got '" + spec + "'");
      }
      result.add(Column.newBuilder().setName(spec.substring(0, colon).trim())
          .setType(spec.substring(colon + 1).trim().toUpperCase(Locale.ROOT)).build());
    }
    return result;
  }

  static String columns(StreamInfo s) {
    return s.getColumnsList().stream().map(c -> c.getName() + ":" + c.getType()).collect(Collectors.joining(" "));
  }
}
