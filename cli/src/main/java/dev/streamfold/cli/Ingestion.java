package dev.streamfold.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.InputException;
import dev.streamfold.cli.ingest.RowReader;
import dev.streamfold.cli.ingest.StreamIngester;
import java.io.IOException;
import java.io.PrintStream;
import me.tongfei.progressbar.ProgressBar;

/**
 * Ingests rows of a reader into a stream over gRPC, with a progress bar and a final events/s line.
 *
 * <p>Bad rows (a malformed CSV record or JSON line, a missing key, a value of the wrong type): by default
 * the first one stops the ingestion. The rows before it are appended (the call is completed normally and
 * every acknowledgement awaited, so exactly those rows are in the ledger) and nothing from it on; the
 * error names the row and line and says how many events were appended up to which message ID. With
 * {@code skipBad}, bad rows are skipped, counted and the first {@value #SHOWN_BAD_ROWS} reported.
 */
final class Ingestion {
  /**
   * Events per request: {@link StreamIngester#DEFAULT_BATCH_EVENTS}, or the tenant's {@code max_events_per_batch}
   * when that is smaller (read with {@code TenantService.GetTenant}), so that a tenant created with a small
   * {@code --max-batch} can ingest at all. A server without the tenant service, an unregistered tenant or a caller
   * not allowed to read it keeps the default (the server still refuses a request over its limit, naming it).
   *
   * @param client the server
   * @param tenant the tenant appended to
   * @return events per request, 1..{@link StreamIngester#DEFAULT_BATCH_EVENTS}
   */
  static int batchEvents(StreamfoldClient client, String tenant) {
    try {
      int max = client.tenants().getTenant(dev.streamfold.api.v1.TenantRequest.newBuilder().setTenant(tenant).build())
          .getLimits().getMaxEventsPerBatch();
      return max > 0 ? Math.min(max, StreamIngester.DEFAULT_BATCH_EVENTS) : StreamIngester.DEFAULT_BATCH_EVENTS;
    } catch (io.grpc.StatusRuntimeException unknown) {
      return StreamIngester.DEFAULT_BATCH_EVENTS;
    }
  }

  /** Bad rows described one by one when they are skipped; the rest are only counted. */
  static final int SHOWN_BAD_ROWS = 5;

  private Ingestion() {}

  static StreamIngester.Result run(StreamfoldClient client, String tenant, String stream, RowReader reader,
      EventMapper mapper, long maxRows, String task, PrintStream out) throws IOException {
    return run(client, tenant, stream, reader, mapper, maxRows, task, out, false);
  }

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
   * @param skipBad skip bad rows (counted and reported) instead of stopping at the first
   * @return what was appended
   * @throws IOException if the input cannot be read
   * @throws CliException at the first bad row unless {@code skipBad}: the row, the problem, and what was
   *     appended before it
   */
  static StreamIngester.Result run(StreamfoldClient client, String tenant, String stream, RowReader reader,
      EventMapper mapper, long maxRows, String task, PrintStream out, boolean skipBad) throws IOException {
    long total = reader.totalRows() >= 0 ? Math.min(reader.totalRows() - reader.rowNumber(), maxRows)
        : maxRows == Long.MAX_VALUE ? -1 : maxRows;
    StreamIngester ingester = new StreamIngester(client.ingest(), tenant, stream,
        batchEvents(client, tenant), StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS);
    long[] read = {0};
    long[] skipped = {0};
    java.util.List<String> shown = new java.util.ArrayList<>();
    InputException[] stoppedAt = {null};
    // where the events not yet acknowledged came from, by ordinal (the server may refuse one of them)
    int remembered = StreamIngester.DEFAULT_BATCH_EVENTS * (StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS + 2);
    String[] wheres = new String[remembered];
    long[] ordinal = {0};
    StreamIngester.Result result;
    try (ProgressBar bar = Progress.bar(task, total)) {
      result = ingester.ingest(() -> {
        while (read[0] < maxRows) {
          try {
            ObjectNode row = reader.next();
            if (row == null) {
              return null;
            }
            read[0]++;
            dev.streamfold.api.v1.Event event = mapper.toEvent(row, reader.rowNumber(), reader.where());
            wheres[(int) (ordinal[0]++ % remembered)] = reader.where();
            return event;
          } catch (InputException bad) {
            read[0]++;
            if (!skipBad) {
              stoppedAt[0] = bad;
              return null; // the rows before it are sent and acknowledged; nothing after it
            }
            skipped[0]++;
            if (shown.size() < SHOWN_BAD_ROWS) {
              shown.add(bad.getMessage());
            }
          }
        }
        return null;
      }, bar::stepTo, n -> n >= ordinal[0] - remembered && n < ordinal[0] ? wheres[(int) (n % remembered)]
          : "event " + (n + 1) + " of the input");
    }
    if (stoppedAt[0] != null) {
      throw new CliException(stoppedAt[0].getMessage() + "; stopped there: the " + String.format("%,d", result.events())
          + " events before it were appended to " + tenant + "/" + stream
          + (result.events() == 0 ? "" : " (message IDs " + result.firstMessageId() + " .. " + result.lastMessageId() + ")")
          + ", nothing from that row on; fix the row, or re-run with --skip-bad to skip bad rows");
    }
    if (skipped[0] > 0) {
      out.printf("Skipped %,d bad row%s (--skip-bad)%s:%n", skipped[0], skipped[0] == 1 ? "" : "s",
          skipped[0] > shown.size() ? ", the first " + shown.size() : "");
      shown.forEach(line -> out.println("  " + line));
    }
    out.printf("Appended %,d events to %s/%s in %.1f s: %,.0f events/s%s%n", result.events(), tenant, stream,
        result.elapsedNanos() / 1e9, result.eventsPerSecond(),
        result.events() == 0 ? "" : " (message IDs " + result.firstMessageId() + " .. " + result.lastMessageId() + ")");
    if (result.rateWaits() > 0) {
      out.printf("Held back by tenant %s's ingest rate limit: %,d request%s refused and sent again, after %.1f s of"
          + " waiting in all%n", tenant, result.rateWaits(), result.rateWaits() == 1 ? "" : "s",
          result.rateWaitedMs() / 1e3);
    }
    return result;
  }
}
