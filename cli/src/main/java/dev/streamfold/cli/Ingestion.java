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
 * error names the row and line, says how many events were appended up to which message ID, and how to go on
 * from that row ({@code --from-row}) without appending the rows before it again. With {@code skipBad}, bad
 * rows are skipped, counted and the first {@value #SHOWN_BAD_ROWS} reported; a file whose rows were all bad
 * is an error. A line that is not UTF-8 text stops the ingestion the same way, even with {@code skipBad}
 * (the reader cannot tell where the text resumes).
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
    return run(client, tenant, stream, reader, mapper, maxRows, task, out, false, null);
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
   * @param fromRowOption the command's option that starts at a row (e.g. {@code --from-row}), named in the error
   *     at a bad row to go on from it; null when the command has none
   * @return what was appended
   * @throws IOException if the input cannot be opened
   * @throws CliException at the first bad row unless {@code skipBad}, or at a line that cannot be read: the row,
   *     the problem, what was appended before it and how to go on; when every row was bad
   */
  static StreamIngester.Result run(StreamfoldClient client, String tenant, String stream, RowReader reader,
      EventMapper mapper, long maxRows, String task, PrintStream out, boolean skipBad, String fromRowOption)
      throws IOException {
    long total = reader.totalRows() >= 0 ? Math.min(reader.totalRows() - reader.rowNumber(), maxRows)
        : maxRows == Long.MAX_VALUE ? -1 : maxRows;
    StreamIngester ingester = new StreamIngester(client.ingest(), tenant, stream,
        batchEvents(client, tenant), StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS);
    long[] read = {0};
    long[] skipped = {0};
    java.util.List<String> shown = new java.util.ArrayList<>();
    Exception[] stoppedAt = {null};
    long[] stoppedRow = {0};
    // where the events not yet acknowledged came from, by ordinal (the server may refuse one of them)
    int remembered = StreamIngester.DEFAULT_BATCH_EVENTS * (StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS + 2);
    String[] wheres = new String[remembered];
    long[] rowNumbers = new long[remembered];
    long[] ordinal = {0};
    long[] acked = {0};
    StreamIngester.Result result;
    try (ProgressBar bar = Progress.bar(task, total)) {
      result = ingester.ingest(() -> {
        while (read[0] < maxRows) {
          boolean counted = false; // each row once against maxRows, good or bad (a bad event counted twice)
          try {
            ObjectNode row = reader.next();
            if (row == null) {
              return null;
            }
            read[0]++;
            counted = true;
            dev.streamfold.api.v1.Event event = mapper.toEvent(row, reader.rowNumber(), reader.where());
            rowNumbers[(int) (ordinal[0] % remembered)] = reader.rowNumber();
            wheres[(int) (ordinal[0]++ % remembered)] = reader.where();
            return event;
          } catch (InputException bad) {
            if (!counted) {
              read[0]++;
            }
            if (!skipBad) {
              stoppedAt[0] = bad;
              stoppedRow[0] = bad.row() > 0 ? bad.row() : reader.rowNumber() + 1;
              return null; // the rows before it are sent and acknowledged; nothing after it
            }
            skipped[0]++;
            if (shown.size() < SHOWN_BAD_ROWS) {
              shown.add(bad.getMessage());
            }
          } catch (IOException unreadable) {
            // e.g. a line that is not UTF-8: the rows before it are sent and acknowledged, as for a bad row
            stoppedAt[0] = unreadable;
            stoppedRow[0] = reader.rowNumber() + 1;
            return null;
          }
        }
        return null;
      }, n -> {
        acked[0] = n;
        bar.stepTo(n);
      }, n -> n >= ordinal[0] - remembered && n < ordinal[0] ? wheres[(int) (n % remembered)]
          : "event " + (n + 1) + " of the input");
    } catch (io.grpc.StatusRuntimeException failed) {
      if (failed.getStatus().getCode() == io.grpc.Status.Code.INVALID_ARGUMENT
          || acked[0] == 0 && !java.util.Set.of(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.DEADLINE_EXCEEDED,
              io.grpc.Status.Code.CANCELLED, io.grpc.Status.Code.INTERNAL, io.grpc.Status.Code.UNKNOWN,
              io.grpc.Status.Code.ABORTED, io.grpc.Status.Code.RESOURCE_EXHAUSTED).contains(failed.getStatus().getCode())) {
        // a refused row, named with the events appended before its request; or refused before anything was
        // acknowledged (a bad token, an unknown stream). A token revoked mid-way is reported with what got in.
        throw failed;
      }
      // e.g. the server died: what it acknowledged is in the ledger; what it did not may be too
      long inFlight = ordinal[0] - acked[0];
      long firstUnacked = acked[0] >= ordinal[0] - remembered && acked[0] < ordinal[0]
          ? rowNumbers[(int) (acked[0] % remembered)] : -1;
      String goOn = inFlight == 0 ? "" : String.format("; %,d more were sent without an acknowledgement and may be in"
          + " it too: compare the stream's event count (streamfold stream list) with what it held before%s", inFlight,
          firstUnacked
          < 0 || fromRowOption == null ? "" : "; if it holds none of them, go on with " + fromRowOption + " "
              + firstUnacked + ", one row later for each one it holds");
      throw new CliException(ErrorHandler.describe(failed.getStatus()) + (acked[0] == 0
          ? "; the server acknowledged none of the events of this ingestion"
          : "; the server acknowledged the first " + String.format("%,d", acked[0]) + " events of this ingestion, which"
              + " are in the ledger") + goOn, failed);
    }
    if (stoppedAt[0] != null) {
      String appended = result.events() == 0 ? "nothing was appended"
          : "the " + String.format("%,d", result.events()) + " events before it were appended to " + tenant + "/" + stream
              + " (message IDs " + result.firstMessageId() + " .. " + result.lastMessageId() + "), nothing from that"
              + " row on";
      String from = fromRowOption + " " + stoppedRow[0];
      String goOn = fromRowOption == null ? ""
          : result.events() == 0 && stoppedRow[0] <= 1 ? (stoppedAt[0] instanceof InputException
              ? "; fix the row, or skip bad rows with --skip-bad" : "")
          : stoppedAt[0] instanceof InputException
              ? "; fix the row and append the rest with " + from + ", or skip bad rows with " + from + " --skip-bad"
                  + " (without " + fromRowOption + ", the rows before it are appended again)"
              : "; once the file is fixed, append the rest with " + from + " (without " + fromRowOption
                  + ", the rows before it are appended again)";
      String skippedBefore = skipped[0] == 0 ? "" : String.format("; before it, %,d bad row%s skipped (--skip-bad),"
          + " the first: %s", skipped[0], skipped[0] == 1 ? " was" : "s were", shown.get(0));
      throw new CliException(stoppedAt[0].getMessage() + "; stopped there: " + appended + skippedBefore + goOn,
          stoppedAt[0]);
    }
    if (skipped[0] > 0 && result.events() == 0) {
      throw new CliException("every row read was bad (" + String.format("%,d", skipped[0]) + "), nothing was appended;"
          + " the first: " + shown.get(0));
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
