package dev.streamfold.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.RowReader;
import dev.streamfold.cli.ingest.StreamIngester;
import java.io.IOException;
import java.io.PrintStream;
import me.tongfei.progressbar.ProgressBar;

/** Ingests rows of a reader into a stream over gRPC, with a progress bar and a final events/s line. */
final class Ingestion {
  private Ingestion() {}

  /**
   * Append up to {@code maxRows} rows of a reader, from its current position.
   *
   * @param client the server
   * @param tenant tenant name
   * @param stream stream name
   * @param reader the rows
   * @param mapper rows to events
   * @param maxRows rows to append at most
   * @param task progress bar label
   * @param out where the summary line goes
   * @return what was appended
   * @throws IOException if the input cannot be read
   */
  static StreamIngester.Result run(StreamfoldClient client, String tenant, String stream, RowReader reader,
      EventMapper mapper, long maxRows, String task, PrintStream out) throws IOException {
    long total = reader.totalRows() >= 0 ? Math.min(reader.totalRows() - reader.rowNumber(), maxRows)
        : maxRows == Long.MAX_VALUE ? -1 : maxRows;
    StreamIngester ingester = new StreamIngester(client.ingest(), tenant, stream,
        StreamIngester.DEFAULT_BATCH_EVENTS, StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS);
    long[] read = {0};
    StreamIngester.Result result;
    try (ProgressBar bar = Progress.bar(task, total)) {
      result = ingester.ingest(() -> {
        if (read[0] >= maxRows) {
          return null;
        }
        ObjectNode row = reader.next();
        if (row == null) {
          return null;
        }
        read[0]++;
        return mapper.toEvent(row, reader.rowNumber(), reader.where());
      }, bar::stepTo);
    }
    out.printf("Appended %,d events to %s/%s in %.1f s: %,.0f events/s%s%n", result.events(), tenant, stream,
        result.elapsedNanos() / 1e9, result.eventsPerSecond(),
        result.events() == 0 ? "" : " (message IDs " + result.firstMessageId() + " .. " + result.lastMessageId() + ")");
    return result;
  }
}
