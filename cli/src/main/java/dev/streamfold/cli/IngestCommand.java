package dev.streamfold.cli;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold ingest STREAM FILE --key FIELD [--time FIELD]}. */
@Command(name = "ingest", description = "Append the rows of a CSV, JSON Lines or Parquet file to a stream, each row"
    + " one event (payload: the row as a JSON object), over the gRPC ingestion API.")
final class IngestCommand implements Callable<Integer> {
  @Mixin
  ServerOptions server = new ServerOptions();

  @Parameters(index = "0", paramLabel = "STREAM", description = "Stream name (create it first: streamfold stream create).")
  String stream;

  @Parameters(index = "1", paramLabel = "FILE", description = "Input file.")
  Path file;

  @Option(names = "--format", paramLabel = "FORMAT",
      description = "csv, jsonl or parquet (default: from the file extension).")
  FileFormat format;

  @Option(names = "--key", paramLabel = "FIELD", required = true, description = "Field whose value is the event key.")
  String keyField;

  @Option(names = "--time", paramLabel = "FIELD",
      description = "Field holding the event time: epoch ms or ISO-8601 (UTC unless an offset is given)."
          + " Default: the ingestion time.")
  String timeField;

  @Option(names = "--limit", paramLabel = "ROWS", description = "Append at most this many rows.")
  Long limit;

  @Option(names = "--from-row", paramLabel = "ROW", description = "Start at this 1-based data row (the row a"
      + " stopped ingestion names, to go on after fixing it): the rows before it are read but not appended."
      + " Default: 1.")
  Long fromRow;

  @Option(names = "--skip-bad", description = "Skip rows that cannot become events (malformed record, missing key,"
      + " wrong type) and report how many; by default the first bad row stops the ingestion (the rows before it"
      + " are appended).")
  boolean skipBad;

  @Override
  public Integer call() throws IOException {
    // an unset variable in a script (--time "$COL") must not silently mean the ingestion time
    if (keyField.isBlank()) {
      throw new CliException("--key is empty: name the field whose value is the event key");
    }
    if (timeField != null && timeField.isBlank()) {
      throw new CliException("--time is empty: name the field holding the event time, or leave the option out (then"
          + " the ingestion time is used)");
    }
    FileFormat fileFormat = format != null ? format : FileFormat.of(file);
    if (limit != null && limit < 0) {
      throw new CliException("--limit must be at least 0, got " + limit);
    }
    if (fromRow != null && fromRow < 1) {
      throw new CliException("--from-row must be at least 1 (the first data row), got " + fromRow);
    }
    try (StreamfoldClient client = server.connect()) {
      StreamInfo info = findStream(client, server.tenant, stream);
      Map<String, String> types = new LinkedHashMap<>();
      for (Column c : info.getColumnsList()) {
        types.put(c.getName(), c.getType());
      }
      try (RowReader reader = RowReader.open(file, fileFormat, types)) {
        skipRows(reader, fromRow == null ? 0 : fromRow - 1);
        EventMapper mapper = EventMapper.forStream(keyField, timeField, info.getColumnsList());
        Ingestion.run(client, server.tenant, stream, reader, mapper,
            limit == null ? Long.MAX_VALUE : limit, "ingest " + stream, System.out, skipBad, "--from-row");
      }
    }
    return 0;
  }

  /**
   * Read past the rows before {@code --from-row}; bad ones among them do not matter (each read, good or bad,
   * is one row).
   *
   * @throws CliException if the file has fewer rows
   */
  static void skipRows(RowReader reader, long rows) throws IOException {
    for (long k = 0; k < rows; k++) {
      try {
        if (reader.next() == null) {
          throw new CliException("--from-row " + (rows + 1) + ": the file has only " + k + " data rows");
        }
      } catch (dev.streamfold.cli.ingest.InputException beforeTheStart) {
        // not appended: neither are the good rows before the start
      }
    }
  }

  /**
   * Find a stream of a tenant.
   *
   * @return the stream
   * @throws CliException if it does not exist, or its name is not a valid stream name (the server's rule)
   */
  static StreamInfo findStream(StreamfoldClient client, String tenant, String stream) {
    try {
      new dev.streamfold.core.StreamRef("t", stream); // the stream name's own check ("t": any valid tenant)
    } catch (IllegalArgumentException invalid) {
      // no such stream can exist: say why, rather than suggest a `stream create` the server would refuse
      throw new CliException(invalid.getMessage());
    }
    return client.admin().listStreams(ListStreamsRequest.newBuilder().setTenant(tenant).build()).getStreamsList()
        .stream().filter(s -> s.getName().equals(stream)).findFirst()
        .orElseThrow(() -> new CliException("stream '" + stream + "' does not exist in tenant '" + tenant
            + "'; create it with `streamfold stream create " + stream + " --column NAME:TYPE ...`"));
  }
}
