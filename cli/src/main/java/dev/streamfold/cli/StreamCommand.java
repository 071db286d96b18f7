package dev.streamfold.cli;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateStreamResponse;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold stream create|list}. */
@Command(name = "stream", mixinStandardHelpOptions = true, description = "Create and list streams (named sequences of events in a tenant's ledger).",
    subcommands = {StreamCommand.Create.class, StreamCommand.ListStreams.class, StreamCommand.Schema.class})
final class StreamCommand {

  @Command(name = "create", description = "Create a stream with declared columns (idempotent for the same columns).")
  static final class Create implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Stream name.")
    String name;

    @Option(names = {"--column", "-c"}, paramLabel = "NAME:TYPE", split = ",",
        description = "A payload column for SQL, e.g. delay:INT (types: STRING, BOOLEAN, INT, BIGINT, DOUBLE,"
            + " TIMESTAMP), optionally NOT NULL (every event must hold it) and DEFAULT <JSON value> (events without"
            + " it are read with it), e.g. 'carrier:STRING DEFAULT \"AA\"'; repeat or separate with commas.")
    List<String> columns = new ArrayList<>();

    @Option(names = "--watermark-delay", paramLabel = "DURATION", defaultValue = "0s",
        description = "Bounded out-of-orderness of event times for event-time windows, e.g. 0s, 500ms, 5s, 2m"
            + " (default: ${DEFAULT-VALUE}); fixed at creation.")
    String watermarkDelay;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "0",
        description = "Partitions of the stream's Pulsar topic: 0 (default) for one unpartitioned topic, or 2 to 64."
            + " An event goes to partition murmur3_32(key) mod N, so events with the same key stay in order in one"
            + " partition; views read the partitions in parallel and their position is a vector of message IDs,"
            + " one per partition. Fixed at creation.")
    int partitions;

    @Override
    public Integer call() {
      List<Column> parsed = parseColumns(columns);
      long delayMs = dev.streamfold.core.Durations.parseMs(watermarkDelay);
      try (StreamfoldClient client = server.connect()) {
        CreateStreamResponse response = client.admin().createStream(CreateStreamRequest.newBuilder()
            .setTenant(server.tenant).setName(name).addAllColumns(parsed).setWatermarkDelayMs(delayMs)
            .setPartitions(partitions).build());
        StreamInfo s = response.getStream();
        System.out.println((response.getCreated() ? "Created" : "Exists:") + " stream " + s.getTenant() + "/"
            + s.getName() + " (" + s.getTopic() + ") columns " + columns(s)
            + (s.getWatermarkDelayMs() > 0 ? ", watermark delay " + s.getWatermarkDelayMs() + " ms" : "")
            + (s.getPartitions() > 0 ? ", " + s.getPartitions() + " partitions" : ""));
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
        // columns as wide as their longest value (a partitioned stream's position is one message ID per partition)
        int nameWidth = Math.max(6, streams.stream().mapToInt(s -> s.getName().length()).max().orElse(0));
        int positionWidth = Math.max(15, streams.stream().mapToInt(s -> s.getLatestPosition().length()).max().orElse(0));
        String row = "%-" + nameWidth + "s %12s %5s  %-" + positionWidth + "s  %s%n";
        System.out.printf(row, "STREAM", "EVENTS", "PARTS", "LATEST POSITION", "COLUMNS");
        for (StreamInfo s : streams) {
          System.out.printf(row, s.getName(), String.format("%,d", s.getEventCount()),
              s.getPartitions() == 0 ? "-" : Integer.toString(s.getPartitions()),
              s.getLatestPosition().isEmpty() ? "-" : s.getLatestPosition(), columns(s));
        }
      }
      return 0;
    }
  }

  @Command(name = "schema", description = "Change a stream's schema.", subcommands = {StreamCommand.SchemaUpdate.class})
  static final class Schema {
  }

  @Command(name = "update", description = "Replace a stream's columns (all of them, as in stream create). Stored events"
      + " must fit: a new column is optional or has a DEFAULT (old events are read with it); types and DEFAULTs of"
      + " existing columns do not change; a NOT NULL column without DEFAULT stays.")
  static final class SchemaUpdate implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Stream name.")
    String name;

    @Option(names = {"--column", "-c"}, paramLabel = "NAME:TYPE", split = ",", required = true,
        description = "Every column of the new schema, as in stream create.")
    List<String> columns = new ArrayList<>();

    @Override
    public Integer call() {
      List<Column> parsed = parseColumns(columns);
      try (StreamfoldClient client = server.connect()) {
        StreamInfo s = client.admin().updateStreamSchema(dev.streamfold.api.v1.UpdateStreamSchemaRequest.newBuilder()
            .setTenant(server.tenant).setName(name).addAllColumns(parsed).build());
        System.out.println("Stream " + s.getTenant() + "/" + s.getName() + " columns " + columns(s));
      }
      return 0;
    }
  }

  /**
   * Parse column declarations {@code name:TYPE [NOT NULL] [DEFAULT <JSON value>]}.
   *
   * @param specs the declarations
   * @return the columns, types upper-cased
   * @throws CliException if one is malformed (the message quotes it)
   */
  static List<Column> parseColumns(List<String> specs) {
    List<Column> result = new ArrayList<>();
    for (String spec : specs) {
      dev.streamfold.schema.StreamColumn c;
      try {
        c = dev.streamfold.schema.StreamColumn.parse(spec);
      } catch (IllegalArgumentException e) {
        throw new CliException("--column: " + e.getMessage());
      }
      result.add(Column.newBuilder().setName(c.name()).setType(c.type()).setRequired(c.required())
          .setDefaultJson(c.defaultJson() == null ? "" : c.defaultJson()).build());
    }
    return result;
  }

  static String columns(StreamInfo s) {
    return s.getColumnsList().stream().map(c -> c.getName() + ":" + c.getType() + (c.getRequired() ? " NOT NULL" : "")
        + (c.getDefaultJson().isEmpty() ? "" : " DEFAULT " + c.getDefaultJson())).collect(Collectors.joining(", "));
  }
}
