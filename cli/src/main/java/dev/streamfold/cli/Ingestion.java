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
    RowFeed feed = new RowFeed(reader, mapper, maxRows, skipBad);
    long[] acked = {0};
    StreamIngester.Result result;
    try (ProgressBar bar = Progress.bar(task, total)) {
      result = ingester.ingest(feed::next, n -> {
        acked[0] = n;
        bar.stepTo(n);
      }, feed::where);
    } catch (io.grpc.StatusRuntimeException failed) {
      if (failed.getStatus().getCode() == io.grpc.Status.Code.INVALID_ARGUMENT
          || acked[0] == 0 && !java.util.Set.of(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.DEADLINE_EXCEEDED,
              io.grpc.Status.Code.CANCELLED, io.grpc.Status.Code.INTERNAL, io.grpc.Status.Code.UNKNOWN,
              io.grpc.Status.Code.ABORTED, io.grpc.Status.Code.RESOURCE_EXHAUSTED).contains(failed.getStatus().getCode())) {
        // a refused row, named with the events appended before its request; or refused before anything was
        // acknowledged (a bad token, an unknown stream). A token revoked mid-way is reported with what got in.
        throw failed;
      }
      throw serverFailed(failed, feed, acked[0], fromRowOption);
    }
    if (feed.stoppedAt != null) {
      throw stopped(feed, result, tenant, stream, fromRowOption);
    }
    if (feed.skipped > 0 && result.events() == 0) {
      throw new CliException("every row read was bad (" + String.format("%,d", feed.skipped) + "), nothing was appended;"
          + " the first: " + feed.shown.get(0));
    }
    printSummary(out, feed, result, tenant, stream);
    return result;
  }

  /**
   * The error when the server failed mid-way (e.g. it died): what it acknowledged is in the ledger; what it did
   * not may be too.
   */
  private static CliException serverFailed(io.grpc.StatusRuntimeException failed, RowFeed feed, long acked,
      String fromRowOption) {
    long inFlight = feed.ordinal - acked;
    long firstUnacked = feed.rowNumberOf(acked);
    String goOn = inFlight == 0 ? "" : String.format("; %,d more were sent without an acknowledgement and may be in"
        + " it too: compare the stream's event count (streamfold stream list) with what it held before%s", inFlight,
        firstUnacked
        < 0 || fromRowOption == null ? "" : "; if it holds none of them, go on with " + fromRowOption + " "
            + firstUnacked + ", one row later for each one it holds");
    return new CliException(ErrorHandler.describe(failed.getStatus()) + (acked == 0
        ? "; the server acknowledged none of the events of this ingestion"
        : "; the server acknowledged the first " + String.format("%,d", acked) + " events of this ingestion, which"
            + " are in the ledger") + goOn, failed);
  }

  /** The error at the row that stopped the ingestion (a bad row without skipBad, or an unreadable line). */
  private static CliException stopped(RowFeed feed, StreamIngester.Result result, String tenant, String stream,
      String fromRowOption) {
    String appended = result.events() == 0 ? "nothing was appended"
        : "the " + String.format("%,d", result.events()) + " events before it were appended to " + tenant + "/" + stream
            + " (" + appendedIds(result) + "), nothing from that row on";
    String from = fromRowOption + " " + feed.stoppedRow;
    String goOn = fromRowOption == null ? ""
        : result.events() == 0 && feed.stoppedRow <= 1 ? (feed.stoppedAt instanceof InputException
            ? "; fix the row, or skip bad rows with --skip-bad" : "")
        : feed.stoppedAt instanceof InputException
            ? "; fix the row and append the rest with " + from + ", or skip bad rows with " + from + " --skip-bad"
                + " (without " + fromRowOption + ", the rows before it are appended again)"
            : "; once the file is fixed, append the rest with " + from + " (without " + fromRowOption
                + ", the rows before it are appended again)";
    String skippedBefore = feed.skipped == 0 ? "" : String.format("; before it, %,d bad row%s skipped (--skip-bad),"
        + " the first: %s", feed.skipped, feed.skipped == 1 ? " was" : "s were", feed.shown.get(0));
    return new CliException(feed.stoppedAt.getMessage() + "; stopped there: " + appended + skippedBefore + goOn,
        feed.stoppedAt);
  }

  /**
   * The message IDs an ingestion was given: their range on an unpartitioned stream, else the last of each partition
   * (a range from one partition's first to another's last would say nothing).
   */
  static String appendedIds(StreamIngester.Result result) {
    return result.lastPosition().contains(",") ? "last message ID of each partition: position " + result.lastPosition()
        : "message IDs " + result.firstMessageId() + " .. " + result.lastMessageId();
  }

  /** Print the skipped rows, the events/s line and the time held back by the tenant's rate limit. */
  private static void printSummary(PrintStream out, RowFeed feed, StreamIngester.Result result, String tenant,
      String stream) {
    if (feed.skipped > 0) {
      out.printf("Skipped %,d bad row%s (--skip-bad)%s:%n", feed.skipped, feed.skipped == 1 ? "" : "s",
          feed.skipped > feed.shown.size() ? ", the first " + feed.shown.size() : "");
      feed.shown.forEach(line -> out.println("  " + line));
    }
    out.printf("Appended %,d event%s to %s/%s in %.1f s: %,.0f events/s%s%n", result.events(),
        result.events() == 1 ? "" : "s", tenant, stream,
        result.elapsedNanos() / 1e9, result.eventsPerSecond(),
        result.events() == 0 ? "" : " (" + appendedIds(result) + ")");
    if (result.rateWaits() > 0) {
      out.printf("Held back by tenant %s's ingest rate limit: %,d request%s refused and sent again, after %.1f s of"
          + " waiting in all%n", tenant, result.rateWaits(), result.rateWaits() == 1 ? "" : "s",
          result.rateWaitedMs() / 1e3);
    }
  }

  /**
   * The events of a reader's rows, up to {@code maxRows} rows (good or bad), for {@link StreamIngester}: skips and
   * counts bad rows with {@code skipBad}, else stops at the first (ending the events there), and stops at a line
   * that cannot be read. Remembers where the events not yet acknowledged came from, by ordinal, so that a refusal
   * of one of them names its row. Used by the ingester's one thread.
   */
  private static final class RowFeed {
    /** Events whose origin is remembered: every event that can be unacknowledged at once, and some. */
    private static final int REMEMBERED =
        StreamIngester.DEFAULT_BATCH_EVENTS * (StreamIngester.DEFAULT_MAX_UNACKED_REQUESTS + 2);

    private final RowReader reader;
    private final EventMapper mapper;
    private final long maxRows;
    private final boolean skipBad;
    private final String[] wheres = new String[REMEMBERED];
    private final long[] rowNumbers = new long[REMEMBERED];
    private long read;
    /** Events produced so far. */
    long ordinal;
    long skipped;
    final java.util.List<String> shown = new java.util.ArrayList<>();
    /** What stopped the ingestion, or null. */
    Exception stoppedAt;
    /** The row it stopped at (1-based). */
    long stoppedRow;

    RowFeed(RowReader reader, EventMapper mapper, long maxRows, boolean skipBad) {
      this.reader = reader;
      this.mapper = mapper;
      this.maxRows = maxRows;
      this.skipBad = skipBad;
    }

    dev.streamfold.api.v1.Event next() {
      while (read < maxRows) {
        boolean counted = false; // each row once against maxRows, good or bad (a bad event counted twice)
        try {
          ObjectNode row = reader.next();
          if (row == null) {
            return null;
          }
          read++;
          counted = true;
          dev.streamfold.api.v1.Event event = mapper.toEvent(row, reader.rowNumber(), reader.where());
          rowNumbers[(int) (ordinal % REMEMBERED)] = reader.rowNumber();
          wheres[(int) (ordinal++ % REMEMBERED)] = reader.where();
          return event;
        } catch (InputException bad) {
          if (!counted) {
            read++;
          }
          if (!skipBad) {
            stoppedAt = bad;
            stoppedRow = bad.row() > 0 ? bad.row() : reader.rowNumber() + 1;
            return null; // the rows before it are sent and acknowledged; nothing after it
          }
          skipped++;
          if (shown.size() < SHOWN_BAD_ROWS) {
            shown.add(bad.getMessage());
          }
        } catch (IOException unreadable) {
          // e.g. a line that is not UTF-8: the rows before it are sent and acknowledged, as for a bad row
          stoppedAt = unreadable;
          stoppedRow = reader.rowNumber() + 1;
          return null;
        }
      }
      return null;
    }

    /** Where the event of an ordinal came from, while remembered. */
    String where(long n) {
      return remembered(n) ? wheres[(int) (n % REMEMBERED)] : "event " + (n + 1) + " of the input";
    }

    /** The row of the event of an ordinal, or -1 when it is not remembered. */
    long rowNumberOf(long n) {
      return remembered(n) ? rowNumbers[(int) (n % REMEMBERED)] : -1;
    }

    private boolean remembered(long n) {
      return n >= ordinal - REMEMBERED && n < ordinal;
    }
  }
}
