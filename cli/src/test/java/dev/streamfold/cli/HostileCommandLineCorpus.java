package dev.streamfold.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A counted corpus of hostile {@code streamfold} command lines, each with the exit code and the start of the first
 * line it must print on stderr (one line, no stack trace, no exception class). Run by {@link HostileCommandLineIT}
 * against the whole server, whose tenant holds the stream {@value #STREAM} (3 events) and its view {@value #VIEW}:
 * after each entry its streams, transformations, views and virtual states are what they were.
 *
 * <p>Unless an entry is {@code plain}, the runner appends {@code --server --tenant --token} with the test server's
 * values. In arguments, {@code {csv}} is a small valid CSV file ({@code k,n} and one row), {@code {server}} the
 * server's gRPC address, {@code {tenant}} the tenant and {@code {token}} the admin token.
 */
final class HostileCommandLineCorpus {
  /** Entries in {@link #entries()}: the count the docs report. */
  static final int SIZE = 146;
  static final String STREAM = "events";
  static final String VIEW = "counts";

  /**
   * One hostile command line.
   *
   * @param args the arguments
   * @param plain true to run them as given (no {@code --server --tenant --token} appended)
   * @param exitCode the exit code it must get
   * @param error the start of the first line of stderr
   */
  record Entry(List<String> args, boolean plain, int exitCode, String error) {
    String name() {
      return String.join(" ", args.stream().map(a -> a.length() > 40 ? a.substring(0, 20) + "...(" + a.length() + ")"
          : "'" + a.replace("\0", "\\0").replace("\n", "\\n") + "'").toList());
    }
  }

  private final List<Entry> entries = new ArrayList<>();

  private HostileCommandLineCorpus() {}

  private void add(int exitCode, String error, String... args) {
    entries.add(new Entry(List.of(args), false, exitCode, error));
  }

  private void plain(int exitCode, String error, String... args) {
    entries.add(new Entry(List.of(args), true, exitCode, error));
  }

  private static final String BAD_STREAM = "error: INVALID_ARGUMENT: invalid stream name";

  /** Every entry, in order. */
  static List<Entry> entries() {
    HostileCommandLineCorpus c = new HostileCommandLineCorpus();
    c.unknown();
    c.missing();
    c.wrongTypes();
    c.names();
    c.twice();
    c.connection();
    return c.entries;
  }

  private void unknown() {
    add(2, "Unmatched arguments from index 0: 'nope', '--server'", "nope");
    add(2, "Unmatched arguments from index 1: 'nope', '--server'", "stream", "nope");
    add(2, "Unknown option: '--nope'", "ingest", STREAM, "{csv}", "--key", "k", "--nope");
    plain(2, "Unknown option: '--nope'", "--nope");
    add(2, "Unknown option: '-x'", "stream", "list", "-x");
    add(2, "Unmatched arguments from index 0: '', '--server'", "");
    add(2, "Unmatched arguments from index 0: 'STREAM', 'list'", "STREAM", "list");
    add(2, "Unmatched arguments from index 1: 'lsit', '--server'", "stream", "lsit");
    add(2, "Unmatched argument at index 3: 'extra'", "transform", "status", VIEW, "extra");
    add(2, "Unmatched argument at index 4: 'extra'", "view", "get", VIEW, "k", "extra");
    plain(2, "error: --token goes after the command's name", "--token", "{token}", "stream", "list");
    add(2, "Unknown option: '--sql=SELECT 1'", "stream", "create", "x", "--sql=SELECT 1");
    add(2, "Unmatched arguments from index 1: '\u6d41', '--server'", "stream", "\u6d41");
    // picocli quotes what it did not match: a token among it is not shown
    plain(2, "Unmatched arguments from index 0: 'nope', '--token', '" + StreamfoldCli.REDACTED + "'", "nope", "--token",
        "{token}");
    plain(2, "Unmatched arguments from index 1: 'nope', '--token=" + StreamfoldCli.REDACTED + "'", "stream", "nope",
        "--token={token}");
  }

  private void missing() {
    add(2, "Missing required parameter: 'NAME'", "transform", "create");
    add(2, "Missing required parameters: 'STREAM', 'FILE'", "ingest");
    add(2, "Missing required options and parameters: '--key=FIELD', 'FILE'", "ingest", STREAM);
    add(2, "Missing required option: '--key=FIELD'", "ingest", STREAM, "{csv}");
    plain(2, "Missing required parameter for option '--key' (FIELD)", "ingest", STREAM, "{csv}", "--key");
    plain(2, "Missing required parameter for option '--column' (NAME:TYPE)", "stream", "create", "x", "--column");
    add(2, "Error: Missing required argument (specify one of these): (--to=CURSOR | --before=CURSOR)", "replay", VIEW);
    add(2, "Error: --to=CURSOR, --before=CURSOR are mutually exclusive", "replay", VIEW, "--to", "latest", "--before",
        "latest");
    add(2, "Missing required parameters: 'VIEW', 'KEY'", "view", "get");
    add(2, "Missing required parameter: 'KEY'", "view", "get", VIEW);
    add(2, "Missing required option: '--column=NAME:TYPE'", "stream", "schema", "update", STREAM);
    add(2, "Error: Missing required argument (specify one of these): (--id=TOKEN_ID | --all)", "tenant", "token",
        "revoke", "{tenant}");
    add(1, "error: give the transformation: --sql SQL, or --jar FILE --class CLASS --stream STREAM", "transform",
        "create", "x");
    add(1, "error: a Java transformation needs --jar, --class and --stream; missing: --class --stream", "transform",
        "create", "x", "--jar", "{csv}");
    add(1, "error: give either --sql or --jar/--class/--stream, not both", "transform", "create", "x", "--sql",
        "SELECT 1", "--jar", "{csv}");
    add(2, "Missing required option: '--entity=EXPR'", "training-set", "create", "x");
    add(1, "error: give --label-stream or --labels-file, not both", "training-set", "create", "x", "--entity", "o",
        "--label-stream", "s", "--labels-file", "l.csv", "--feature", "v.c");
    add(1, "error: INVALID_ARGUMENT: --labels-file ", "training-set", "create", "x", "--labels-file", "no-such.csv",
        "--time", "ts", "--entity", "o", "--feature", "v.c");
    add(1, "error: INVALID_ARGUMENT: --labels-file ", "training-set", "create", "x", "--labels-file", "{csv}.txt",
        "--time", "ts", "--entity", "o", "--feature", "v.c");
  }

  private void wrongTypes() {
    add(2, "Invalid value for option '--limit': 'ten' is not a long",
        "ingest", STREAM, "{csv}", "--key", "k", "--limit", "ten");
    add(1, "error: --limit must be at least 0, got -1", "ingest", STREAM, "{csv}", "--key", "k", "--limit", "-1");
    add(2, "Invalid value for option '--limit': '99999999999999999999' is not a long",
        "ingest", STREAM, "{csv}", "--key", "k", "--limit", "99999999999999999999");
    add(2, "Invalid value for option '--limit': '' is not a long", "ingest", STREAM, "{csv}", "--key", "k", "--limit=");
    add(1, "error: --from-row must be at least 1 (the first data row), got 0", "ingest", STREAM, "{csv}", "--key", "k",
        "--from-row", "0");
    add(1, "error: --from-row must be at least 1 (the first data row), got -5", "ingest", STREAM, "{csv}", "--key", "k",
        "--from-row", "-5");
    add(1, "error: --from-row 1000000000000: the file has only 1 data rows", "ingest", STREAM, "{csv}", "--key", "k",
        "--from-row", "1000000000000");
    add(2, "Invalid value for option '--format': expected one of [CSV, JSONL, PARQUET]", "ingest", STREAM, "{csv}",
        "--key", "k", "--format", "xml");
    add(2, "Invalid value for option '--format': expected one of [CSV, JSONL, PARQUET]", "ingest", STREAM, "{csv}",
        "--key", "k", "--format", "");
    add(1, "error: --key is empty", "ingest", STREAM, "{csv}", "--key", "");
    add(1, "error: --key is empty", "ingest", STREAM, "{csv}", "--key", " ");
    add(1, "error: --time is empty", "ingest", STREAM, "{csv}", "--key", "k", "--time", "");
    add(1, "error: INVALID_ARGUMENT: partitions must be 0 or 1 (unpartitioned) or 2 to 64, got -1",
        "stream", "create", "x", "--partitions", "-1");
    add(1, "error: INVALID_ARGUMENT: partitions must be 0 or 1 (unpartitioned) or 2 to 64, got 65",
        "stream", "create", "x", "--partitions", "65");
    add(2, "Invalid value for option '--partitions': 'abc' is not an int",
        "stream", "create", "x", "--partitions", "abc");
    add(2, "Invalid value for option '--partitions': '99999999999' is not an int", "stream", "create", "x",
        "--partitions", "99999999999");
    add(1, "error: cannot read duration '-5s': use e.g. 500ms, 90s, 15m, 2h, 7d or PT2H",
        "stream", "create", "x", "--watermark-delay", "-5s");
    add(1, "error: cannot read duration 'forever': use e.g. 500ms, 90s, 15m, 2h, 7d or PT2H",
        "stream", "create", "x", "--watermark-delay", "forever");
    add(1, "error: --column: a column is NAME:TYPE [NOT NULL] [DEFAULT <JSON value>] (e.g. delay:INT, "
        + "carrier:STRING DEFAULT \"AA\"), got 'n'",
        "stream", "create", "x", "--column", "n");
    add(1, "error: --column: column 'n' has unsupported type 'NOPE'; supported: STRING, BOOLEAN, INT, BIGINT, "
        + "DOUBLE, TIMESTAMP",
        "stream", "create", "x", "--column", "n:NOPE");
    add(1, "error: --column: a column is NAME:TYPE [NOT NULL] [DEFAULT <JSON value>] (e.g. delay:INT, "
        + "carrier:STRING DEFAULT \"AA\"), got ':BIGINT'",
        "stream", "create", "x", "--column", ":BIGINT");
    add(1, "error: --column: column 'n' DEFAULT notjson is not a JSON value (a text needs quotes, e.g. \"AA\")",
        "stream", "create", "x", "--column", "n:BIGINT DEFAULT notjson");
    add(1, "error: INVALID_ARGUMENT: column 'n' is declared twice",
        "stream", "create", "x", "--column", "n:BIGINT", "--column", "n:STRING");
    add(1, "error: FAILED_PRECONDITION: incompatible schema change for stream '{tenant}/events': column 'n' cannot "
        + "change its type from BIGINT to STRING",
        "stream", "schema", "update", STREAM, "--column", "n:STRING");
    add(1, "error: INVALID_ARGUMENT: SQL is empty", "transform", "create", "x", "--sql", "");
    add(1, "error: --timeout must be at least 1 (seconds), got -1", "transform", "create", "x", "--sql", "SELECT 1",
        "--timeout", "-1");
    add(2, "Invalid value for option '--timeout'", "transform", "create", "x", "--sql", "SELECT 1", "--timeout", "1e9");
    add(1, "error: --max-batch must be at least 1, got 0 (leave it out for the default)",
        "tenant", "create", "t-corpus", "--max-batch", "0");
    add(1, "error: --max-batch must be at least 1, got -1 (leave it out for the default)",
        "tenant", "create", "t-corpus", "--max-batch", "-1");
    add(1, "error: INVALID_ARGUMENT: max event bytes must be in 1..16777216, got 99999999999",
        "tenant", "create", "t-corpus", "--max-event-bytes", "99999999999");
    add(1, "error: INVALID_ARGUMENT: offload threshold must be >= -1 bytes, got -2",
        "ledger", "policy", "--threshold-bytes", "-2");
    add(1, "error: INVALID_ARGUMENT: offload deletion lag must be >= 0 ms, got -1",
        "ledger", "policy", "--threshold-bytes", "0", "--deletion-lag-ms", "-1");
    add(1, "error: INVALID_ARGUMENT: field 'to': cannot read cursor 'garbage': use a message ID",
        "replay", VIEW, "--to", "garbage");
    add(1, "error: INVALID_ARGUMENT: field 'to': cannot read cursor '1:2:3:4:5': use a message ID",
        "replay", VIEW, "--to", "1:2:3:4:5");
    add(1, "error: INVALID_ARGUMENT: field 'to': invalid message ID '99999999999999999999:0:-1:0': components must "
        + "be integers",
        "replay", VIEW, "--to", "99999999999999999999:0:-1:0");
    add(1, "error: --timeout must be at least 1 (seconds), got 0", "replay", VIEW, "--to", "latest", "--timeout", "0");
    add(1, "error: --timeout must be at least 1 (seconds), got -1", "rollback", VIEW, "--to", "latest", "--as", "x",
        "--timeout", "-1");
    add(1, "error: --timeout-s must be at least 1 (seconds), got 0",
        "ledger", "offload", STREAM, "--wait", "--timeout-s", "0");
    add(1, "error: --to garbage is not a single message ID (ledgerId:entryId:partition:batchIndex), so it has no "
        + "<view>@<message ID> name",
        "rollback", VIEW, "--to", "garbage");
    add(1, "error: --resp must be HOST:PORT, got 'nohost'", "view", "get", VIEW, "", "--resp", "nohost");
  }

  private void names() {
    for (String name : List.of("my stream", "a\0b", "a\"b", "a@b", "..", "a/b", "../x", "s".repeat(200), "",
        "\u00fcn\u00efc\u00f6d\u00e9", "\u6d41", "__system", "a-partition-1", "tab\there", "new\nline", "'quoted'")) {
      add(1, BAD_STREAM, "stream", "create", name, "--column", "n:BIGINT");
    }
    add(2, "Missing required parameter: 'NAME'", "stream", "create", "-x", "--column", "n:BIGINT");
    for (String name : List.of("my stream", "../x", "a\0b", "s".repeat(200))) {
      add(1, "error: invalid stream name '" + name.replace("\0", "\\u0000").substring(0, Math.min(name.length(), 80)),
          "ingest", name, "{csv}", "--key", "k");
    }
    for (String name : List.of("a b", "..", "v@1", "x".repeat(200), "", "a\0b")) {
      // the server quotes at most 80 characters of a name, escaped
      add(1, "error: INVALID_ARGUMENT: invalid view name '" + name.replace("\0", "\\u0000").substring(0,
          Math.min(name.length(), 80)), "transform", "create", name, "--sql",
          "SELECT _key AS k, COUNT(*) AS n FROM " + STREAM + " GROUP BY _key");
    }
    add(1, "error: NOT_FOUND: transformation 'nope' does not exist in tenant '", "transform", "status", "nope");
    add(1, "error: NOT_FOUND: transformation '..' does not exist in tenant '", "transform", "status", "..");
    add(1, "error: NOT_FOUND: transformation '' does not exist in tenant '", "transform", "delete", "");
    add(1, "error: NOT_FOUND: transformation 'counts\\u0000' does not exist in tenant '",
        "transform", "delete", VIEW + "\0");
    add(1, "error: NOT_FOUND: transformation 'COUNTS' does not exist in tenant '", "transform", "delete", "COUNTS");
    add(1, "error: NOT_FOUND: transformation ' counts' does not exist in tenant '", "transform", "delete", " " + VIEW);
    add(1, "error: NOT_FOUND: transformation 'counts/../counts' does not exist in tenant '",
        "transform", "delete", VIEW + "/../" + VIEW);
    add(1, "error: 'counts' is a view, not a virtual state: remove it with `streamfold transform delete counts`",
        "view", "drop", VIEW);
    add(1, "error: INVALID_ARGUMENT: invalid view name 'counts@x': use a letter", "view", "drop", VIEW + "@x");
    add(1, "error: INVALID_ARGUMENT: invalid view name '..': use a letter", "view", "drop", "..");
    add(1, "error: INVALID_ARGUMENT: invalid view name '..': use a letter",
        "replay", VIEW, "--to", "latest", "--as", "..");
    add(1, "error: INVALID_ARGUMENT: invalid view name 'a b': use a letter",
        "replay", VIEW, "--to", "latest", "--as", "a b");
    add(1, "error: ALREADY_EXISTS: 'counts' already exists in tenant '{tenant}' (a view: name the new state with "
        + "--as)",
        "replay", VIEW, "--to", "latest", "--as", VIEW);
    add(1, "error: NOT_FOUND: transformation 'nope' does not exist in tenant '", "replay", "nope", "--to", "latest");
    add(1, "error: NOT_FOUND: virtual state 'nope' does not exist in tenant '", "rollback", VIEW, "--state", "nope");
    add(1, "error: NOT_FOUND: transformation 'nope' does not exist in tenant '", "resume", "nope");
    add(1, "error: INVALID_ARGUMENT: invalid stream name '..': use a letter", "ledger", "info", "..");
    add(1, "error: NOT_FOUND: stream 'nope' does not exist in tenant '", "ledger", "info", "nope");
    add(1, "error: INVALID_ARGUMENT: invalid tenant name 'UPPER': use lowercase letters, digits, '_' or '-' (at "
        + "most 64 characters)",
        "tenant", "create", "UPPER");
    add(1, "error: INVALID_ARGUMENT: invalid tenant name 'a b': use lowercase letters", "tenant", "create", "a b");
    add(1, "error: INVALID_ARGUMENT: invalid tenant name '../x': use lowercase letters", "tenant", "create", "../x");
  }

  private void twice() {
    add(2, "option '--key' (FIELD) should be specified only once",
        "ingest", STREAM, "{csv}", "--key", "a", "--key", "b");
    add(2, "option '--sql' (SQL) should be specified only once",
        "transform", "create", "x", "--sql", "SELECT 1", "--sql", "SELECT 2");
    plain(2, "option '--tenant' (NAME) should be specified only once", "stream", "list", "--server", "{server}",
        "--token", "{token}", "--tenant", "{tenant}", "--tenant", "other");
    plain(2, "option '--server' (HOST:PORT) should be specified only once", "stream", "list", "--server", "{server}",
        "--server", "{server}", "--token", "{token}");
    plain(2, "option '--token' (TOKEN) should be specified only once", "stream", "list", "--server", "{server}",
        "--token", "{token}", "--token", "{token}");
    add(2, "option '--format' (FORMAT) should be specified only once", "ingest", STREAM, "{csv}", "--key", "k",
        "--format", "csv", "--format", "jsonl");
  }

  private void connection() {
    plain(1, "error: --token is empty",
        "stream", "list", "--server", "{server}", "--tenant", "{tenant}", "--token", "");
    plain(1, "error: --token is empty",
        "stream", "list", "--server", "{server}", "--tenant", "{tenant}", "--token", " ");
    plain(1, "error: --token holds U+0020 at character 4: an API token is one word of printable ASCII",
        "stream", "list", "--server", "{server}", "--tenant", "{tenant}", "--token", "not a token");
    plain(1, "error: --token holds U+000A at character 2", "stream", "list", "--server", "{server}", "--tenant",
        "{tenant}", "--token", "a\nb");
    plain(1, "error: --token holds U+00F6 at character 2", "stream", "list", "--server", "{server}", "--tenant",
        "{tenant}", "--token", "t\u00f6k\u00e9n");
    plain(1, "error: --token holds U+0000 at character 2", "stream", "list", "--server", "{server}", "--tenant",
        "{tenant}", "--token", "a\0b");
    plain(1, "error: UNAUTHENTICATED", "stream", "list", "--server", "{server}", "--tenant", "{tenant}", "--token",
        "sf_not-a-token");
    plain(1, "error: UNAUTHENTICATED", "stream", "list", "--server", "{server}", "--tenant", "{tenant}");
    plain(1, "error: --server must be HOST:PORT, got ''", "stream", "list", "--server", "", "--token", "{token}");
    plain(1, "error: --server must be HOST:PORT, got 'nohost'", "stream", "list", "--server", "nohost", "--token",
        "{token}");
    plain(1, "error: --server must be HOST:PORT with a port 1..65535, got 'host:99999'", "stream", "list", "--server",
        "host:99999", "--token", "{token}");
    plain(1, "error: --server must be HOST:PORT with a port 1..65535, got 'host:-1'", "stream", "list", "--server",
        "host:-1", "--token", "{token}");
    plain(1, "error: --server must be HOST:PORT, got ':80'", "stream", "list", "--server", ":80", "--token", "{token}");
    plain(1, "error: UNAVAILABLE", "stream", "list", "--server", "127.0.0.1:1", "--token", "{token}");
    plain(1, "error: INVALID_ARGUMENT: the admin token acts for any tenant: name one in the request's 'tenant' "
        + "field",
        "stream", "list", "--server", "{server}", "--token", "{token}", "--tenant", "");
    plain(1, "error: INVALID_ARGUMENT: invalid tenant name '../x': use lowercase letters",
        "stream", "list", "--server", "{server}", "--token", "{token}", "--tenant", "../x");
    plain(1, "error: INVALID_ARGUMENT: invalid tenant name 'a b': use lowercase letters",
        "stream", "list", "--server", "{server}", "--token", "{token}", "--tenant", "a b");
    plain(1, "error: NOT_FOUND: tenant 'unregistered' is not registered (create it with: streamfold tenant create "
        + "NAME",
        "stream", "create", "x", "--server", "{server}", "--token", "{token}", "--tenant", "unregistered");
  }
}
