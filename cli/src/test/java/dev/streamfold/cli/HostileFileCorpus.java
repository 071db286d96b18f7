package dev.streamfold.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * A counted corpus of hostile input files for {@code streamfold ingest}, each with the exit code, the start of the
 * error line it must print and the events it must append (0, or exactly the rows before a row that stops it). Run
 * by {@link HostileInputIT#hostileFileCorpus} on a real ingest service and Pulsar ledger, into the stream
 * {@value #TYPED} (columns {@code k STRING, n BIGINT, t TIMESTAMP}) or {@value #FREE} (no declared columns).
 */
final class HostileFileCorpus {
  /** Entries in {@link #entries()}: the count the docs report. */
  static final int SIZE = 162;
  static final String TYPED = "corpus";
  static final String FREE = "corpus_free";

  /** Writes an entry's input at a path (or leaves it absent). */
  @FunctionalInterface
  interface Maker {
    void make(Path file) throws Exception;
  }

  /**
   * One hostile input.
   *
   * @param name what it tries
   * @param fileName the input's file name (its extension picks the format unless the options give one)
   * @param maker writes it
   * @param stream {@link #TYPED} or {@link #FREE}
   * @param options the options after {@code ingest STREAM FILE}
   * @param exitCode the exit code it must get
   * @param error the start of its one {@code error:} line ({@code {file}} is the input's path), "" when none
   * @param appended the events it must append
   */
  record Entry(String name, String fileName, Maker maker, String stream, List<String> options, int exitCode,
      String error, long appended) {}

  private final List<Entry> entries = new ArrayList<>();

  private HostileFileCorpus() {}

  /** Every entry, in order. */
  static List<Entry> entries() {
    HostileFileCorpus c = new HostileFileCorpus();
    c.encoding();
    c.csv();
    c.jsonl();
    c.parquet();
    c.times();
    c.keys();
    c.files();
    return c.entries;
  }

  private static final String NOT_UTF8 = ": not UTF-8 text (a malformed byte sequence); convert the file to UTF-8;"
      + " stopped there: ";

  private void add(String name, String fileName, Maker maker, String stream, List<String> options, int exitCode,
      String error, long appended) {
    entries.add(new Entry(name, fileName, maker, stream, options, exitCode, error, appended));
  }

  /** Text with {@code --key k} into the typed stream. */
  private void text(String name, String fileName, String content, int exitCode, String error, long appended) {
    add(name, fileName, bytes(content.getBytes(StandardCharsets.UTF_8)), TYPED, List.of("--key", "k"), exitCode,
        error, appended);
  }

  private void raw(String name, String fileName, byte[] content, int exitCode, String error, long appended) {
    add(name, fileName, bytes(content), TYPED, List.of("--key", "k"), exitCode, error, appended);
  }

  private static Maker bytes(byte[] content) {
    return file -> Files.write(file, content);
  }

  private static byte[] concat(Object... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (Object p : parts) {
      byte[] b = p instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) p;
      out.write(b, 0, b.length);
    }
    return out.toByteArray();
  }

  private static byte[] b(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }

  private void encoding() {
    raw("Latin-1 on the first data row", "latin1.csv", "k,n\nZ\u00fcrich,1\n".getBytes(StandardCharsets.ISO_8859_1),
        1, "{file} line 2" + NOT_UTF8 + "nothing was appended", 0);
    raw("Latin-1 after two good rows", "latin1_late.csv", concat("k,n\na,1\nb,2\n", "caf\u00e9,3\n".getBytes(
        StandardCharsets.ISO_8859_1), "c,4\n"), 1, "{file} line 4" + NOT_UTF8 + "the 2 events before it were appended", 2);
    raw("UTF-16LE with its BOM", "utf16le.csv", concat(b(0xFF, 0xFE), "k,n\n1,1\n".getBytes(StandardCharsets.UTF_16LE)),
        1, "{file} line 1: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; convert the file to UTF-8", 0);
    raw("UTF-16BE with its BOM", "utf16be.jsonl", concat(b(0xFE, 0xFF),
        "{\"k\":\"a\"}\n".getBytes(StandardCharsets.UTF_16BE)), 1, "{file} line 1: UTF-16 text (it starts with a UTF-16 byte"
        + " order mark), not UTF-8; convert the file to UTF-8; stopped there: nothing was appended", 0);
    raw("a UTF-8 BOM before the CSV header (dropped)", "bom.csv", concat(b(0xEF, 0xBB, 0xBF), "k,n\na,1\nb,2\n"), 0, "", 2);
    raw("a UTF-8 BOM before the first JSON line (dropped)", "bom.jsonl", concat(b(0xEF, 0xBB, 0xBF),
        "{\"k\":\"a\",\"n\":1}\n"), 0, "", 1);
    raw("a UTF-8 BOM on line 2 of JSON Lines", "bom2.jsonl", concat("{\"k\":\"a\"}\n", b(0xEF, 0xBB, 0xBF),
        "{\"k\":\"b\"}\n"), 1, "{file} row 2 (line 2): not valid JSON", 1);
    raw("an overlong encoding of '/' (C0 AF)", "overlong.csv", concat("k,n\n", b(0xC0, 0xAF), ",1\n"), 1,
        "{file} line 2" + NOT_UTF8 + "nothing was appended", 0);
    raw("a raw UTF-16 surrogate encoded as UTF-8 (ED A0 80)", "surrogate_raw.csv", concat("k,n\na", b(0xED, 0xA0, 0x80),
        ",1\n"), 1, "{file} line 2" + NOT_UTF8 + "nothing was appended", 0);
    raw("a raw surrogate in JSON Lines (CESU-8 pair)", "surrogate_raw.jsonl", concat("{\"k\":\"a", b(0xED, 0xA0, 0xBD,
        0xED, 0xB8, 0x80), "\"}\n"), 1, "{file} line 1" + NOT_UTF8 + "nothing was appended", 0);
    raw("a UTF-8 sequence cut at the end of the file", "cut.csv", concat("k,n\na,1\nb", b(0xE2, 0x82)), 1,
        "{file} line 3" + NOT_UTF8 + "the 1 events before it were appended", 1);
    raw("a code point beyond U+10FFFF (F4 90 80 80)", "beyond.jsonl", concat("{\"k\":\"", b(0xF4, 0x90, 0x80, 0x80),
        "\"}\n"), 1, "{file} line 1" + NOT_UTF8 + "nothing was appended", 0);
    raw("a gzip file named .csv", "gz.csv", b(0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0x0A), 1,
        "{file} line 1: not UTF-8 text (a malformed byte sequence); convert the file to UTF-8", 0);
    raw("NUL bytes in a CSV value (a legal character, stored)", "nul.csv", concat("k,n\na", b(0), "b,1\n"), 0, "", 1);
    raw("a NUL byte ending a CSV header name (trimmed away like whitespace)", "nul_header.csv", concat("k", b(0),
        ",n\na,1\n"), 0, "", 1);
    text("a JSON \\ud800 escape alone in a value", "lone_high.jsonl", "{\"k\":\"a\",\"s\":\"x\\ud800y\"}\n", 1,
        "{file} row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+D800", 0);
    text("a JSON \\udc00 escape alone in a value", "lone_low.jsonl", "{\"k\":\"a\",\"s\":\"\\udc00\"}\n", 1,
        "{file} row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+DC00", 0);
    text("a reversed surrogate pair", "reversed.jsonl", "{\"k\":\"a\",\"s\":\"\\ude00\\ud83d\"}\n", 1,
        "{file} row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+DE00", 0);
    text("a lone surrogate escape in the key", "lone_key.jsonl", "{\"k\":\"a\\ud800\"}\n", 1,
        "{file} row 1 (line 1): field 'key' holds a lone UTF-16 surrogate U+D800", 0);
    text("a lone surrogate escape in a field name", "lone_name.jsonl", "{\"k\":\"a\",\"\\ud800\":1}\n", 1,
        "{file} row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+D800", 0);
    text("a lone surrogate escape after two good rows", "lone_late.jsonl",
        "{\"k\":\"a\"}\n{\"k\":\"b\"}\n{\"k\":\"c\",\"s\":\"\\ud800\"}\n{\"k\":\"d\"}\n", 1,
        "{file} row 3 (line 3): field 'payload_json' holds a lone UTF-16 surrogate U+D800", 2);
    add("a lone surrogate escape into a stream without columns", "lone_free.jsonl",
        bytes("{\"k\":\"a\",\"s\":\"\\ud800\"}\n".getBytes(StandardCharsets.UTF_8)), FREE, List.of("--key", "k"), 1,
        "{file} row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+D800", 0);
    add("lone surrogate escapes skipped with --skip-bad", "lone_skip.jsonl",
        bytes("{\"k\":\"a\"}\n{\"k\":\"b\\udfff\"}\n{\"k\":\"c\"}\n".getBytes(StandardCharsets.UTF_8)), FREE,
        List.of("--key", "k", "--skip-bad"), 0, "", 2);
    text("a surrogate pair escape (a legal emoji, stored)", "pair.jsonl", "{\"k\":\"\\ud83d\\ude00\",\"n\":1}\n", 0, "", 1);
  }

  private void csv() {
    text("a quote inside an unquoted field (kept)", "quote_inside.csv", "k,n\na\"b,1\n", 0, "", 1);
    text("text after a closing quote", "after_quote.csv", "k,n\n\"a\"b,1\n", 1,
        "{file} row 1 (line 2): a quoted field ends at '\"' followed by 'b'", 0);
    text("a quoted field never closed", "unclosed.csv", "k,n\n\"abc,1\n", 1,
        "{file} row 1 (line 2): a quoted field is not closed (at the end of the file)", 0);
    text("a quoted field never closed, good rows after it", "unclosed_mid.csv", "k,n\na,1\n\"b,2\nc,3\nd,4\n", 1,
        "{file} row 2 (line 3): a quoted field is not closed (at the end of the file)", 1);
    add("a quoted field never closed, skipped with --skip-bad (the rows after it kept)", "unclosed_skip.csv",
        bytes("k,n\na,1\n\"b,2\nc,3\nd,4\n".getBytes(StandardCharsets.UTF_8)), TYPED,
        List.of("--key", "k", "--skip-bad"), 0, "", 3);
    text("a row with a field too many", "wide.csv", "k,n\na,1\nb,2,3\n", 1,
        "{file} row 2 (line 3): 3 fields, but the header has 2", 1);
    text("a row with a field too few", "narrow.csv", "k,n\na\n", 1, "{file} row 1 (line 2): 1 field, but the header has 2", 0);
    text("a header naming a field twice", "dup_header.csv", "k,n,k\na,1,b\n", 1,
        "{file} line 1: header fields 1 and 3 are both named 'k'", 0);
    text("a header with an empty name", "empty_name.csv", "k,,n\na,x,1\n", 1, "{file} line 1: header field 2 has no name", 0);
    text("a header of whitespace names", "blank_names.csv", "k, \na,1\n", 1, "{file} line 1: header field 2 has no name", 0);
    text("no header (the first row taken as one)", "no_header.csv", "a,1\nb,2\n", 1,
        "{file} row 1 (line 2): key field 'k' is missing; fields: a, 1", 0);
    text("a header only", "header_only.csv", "k,n\n", 0, "", 0);
    text("a header and blank lines", "header_blank.csv", "k,n\n\n\n\n", 0, "", 0);
    text("blank lines between rows (skipped)", "blank_rows.csv", "k,n\n\na,1\n\n\nb,2\n", 0, "", 2);
    text("CRLF line ends", "crlf.csv", "k,n\r\na,1\r\nb,2\r\n", 0, "", 2);
    text("CR-only line ends (classic Mac)", "cr.csv", "k,n\ra,1\rb,2\r", 1,
        "{file} line 1: the header row: a carriage return (CR) outside a quoted field", 0);
    text("CRLF and a lone CR mixed", "crlf_cr.csv", "k,n\r\na,1\rb,2\r\n", 1,
        "{file} row 1 (line 2): a carriage return (CR) outside a quoted field", 0);
    text("a CR inside a quoted field (kept)", "cr_quoted.csv", "k,n\n\"a\rb\",1\n", 0, "", 1);
    text("a line break inside a quoted field (kept)", "lf_quoted.csv", "k,n\n\"a\nb\",1\nc,2\n", 0, "", 2);
    text("a formula-like value (stored as text, never evaluated)", "formula.csv",
        "k,n\n\"=cmd|' /C calc'!A0\",1\n", 0, "", 1);
    text("a formula-like value in a BIGINT column", "formula_n.csv", "k,n\na,=1+2\n", 1,
        "{file} row 1 (line 2): column 'n' value '=1+2' is not of type BIGINT", 0);
    text("a formula in a key: @SUM", "formula_at.csv", "k,n\n@SUM(A1:A9),1\n", 0, "", 1);
    text("hex in a BIGINT column", "hex.csv", "k,n\na,0x10\n", 1, "{file} row 1 (line 2): column 'n' value '0x10' is not of type BIGINT", 0);
    text("NaN in a BIGINT column", "nan.csv", "k,n\na,NaN\n", 1, "{file} row 1 (line 2): column 'n' value 'NaN' is not of type BIGINT", 0);
    text("a decimal in a BIGINT column", "decimal.csv", "k,n\na,1.5\n", 1,
        "{file} row 1 (line 2): column 'n' value '1.5' is not of type BIGINT", 0);
    text("a BIGINT beyond 64 bits", "huge_n.csv", "k,n\na,99999999999999999999\n", 1,
        "{file} row 1 (line 2): column 'n' value '99999999999999999999' is beyond the range of a 64-bit integer (type"
        + " BIGINT)", 0);
    text("Arabic-Indic digits in a BIGINT column", "digits.csv", "k,n\na,\u0661\u0662\n", 1,
        "{file} row 1 (line 2): column 'n' value '\u0661\u0662' is not of type BIGINT", 0);
    text("an empty BIGINT (null, allowed)", "empty_n.csv", "k,n\na,\n", 0, "", 1);
    text("a 2 MB field (over the 1 MiB payload limit)", "enormous.csv", "k,n,s\na,1," + "x".repeat(2_000_000) + "\n",
        1, "{file} row 1 (line 2): field 'payload_json' ", 0);
    text("a 900 KB field (under the limits, stored)", "large.csv", "k,n,s\na,1," + "x".repeat(900_000) + "\n", 0, "", 1);
    text("10,000 columns", "many_columns.csv", "k" + ",c".repeat(0) + java.util.stream.IntStream.range(0, 9_999)
        .mapToObj(i -> ",c" + i).collect(java.util.stream.Collectors.joining()) + "\na" + ",1".repeat(9_999) + "\n", 0, "", 1);
    text("a header naming a field twice after trimming", "dup_trim.csv", "k,n, n\na,1,2\n", 1,
        "{file} line 1: header fields 2 and 3 are both named 'n'", 0);
    text("a stray quote opening a field mid-file, rows after it", "stray.csv", "k,n\na,1\n\"b,2\nc,3\n", 1,
        "{file} row 2 (line 3): a quoted field is not closed (at the end of the file)", 1);
    text("an escaped quote done right (kept)", "escaped.csv", "k,n\n\"a\"\"b\",1\n", 0, "", 1);
    text("a BOM-like U+FEFF inside a value (kept)", "feff.csv", "k,n\na\ufeffb,1\n", 0, "", 1);
    text("a row of commas only", "commas.csv", "k,n\n,\n", 1, "{file} row 1 (line 2): key field 'k' is empty", 0);
  }

  private void jsonl() {
    text("a line cut short", "cut.jsonl", "{\"k\":\"a\",\"n\":\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("the last line cut short after two good ones", "cut_late.jsonl", "{\"k\":\"a\"}\n{\"k\":\"b\"}\n{\"k\":\"c\",", 1,
        "{file} row 3 (line 3): not valid JSON", 2);
    text("two objects on one line", "two.jsonl", "{\"k\":\"a\"} {\"k\":\"b\"}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("garbage after the object", "garbage.jsonl", "{\"k\":\"a\"}x\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a trailing comma", "trailing_comma.jsonl", "{\"k\":\"a\",}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("an object where BIGINT is declared", "nested_n.jsonl", "{\"k\":\"a\",\"n\":{\"x\":1}}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.n' must be a 64-bit integer", 0);
    text("an array where BIGINT is declared", "array_n.jsonl", "{\"k\":\"a\",\"n\":[1]}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.n' must be a 64-bit integer", 0);
    text("an object where STRING is declared", "nested_k.jsonl", "{\"k\":\"a\",\"s\":1,\"k2\":{}}\n", 0, "", 1);
    text("a quoted number where BIGINT is declared", "quoted_n.jsonl", "{\"k\":\"a\",\"n\":\"1\"}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.n' must be a 64-bit integer", 0);
    text("1e400 (beyond a double)", "huge_double.jsonl", "{\"k\":\"a\",\"x\":1e400}\n", 1,
        "{file} row 1 (line 1): field 'x' holds a number beyond the range of a 64-bit floating-point number", 0);
    text("-1e400", "huge_negative.jsonl", "{\"k\":\"a\",\"x\":-1e400}\n", 1,
        "{file} row 1 (line 1): field 'x' holds a number beyond the range of a 64-bit floating-point number", 0);
    text("an integer of 30 digits in BIGINT", "bigint.jsonl", "{\"k\":\"a\",\"n\":123456789012345678901234567890}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.n' must be a 64-bit integer", 0);
    add("an integer of 30 digits, no columns (stored exactly)", "bigint_free.jsonl",
        bytes("{\"k\":\"a\",\"n\":123456789012345678901234567890}\n".getBytes(StandardCharsets.UTF_8)), FREE,
        List.of("--key", "k"), 0, "", 1);
    text("NaN", "nan.jsonl", "{\"k\":\"a\",\"x\":NaN}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("Infinity", "inf.jsonl", "{\"k\":\"a\",\"x\":Infinity}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("-Infinity", "neg_inf.jsonl", "{\"k\":\"a\",\"x\":-Infinity}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a key given twice (the last kept)", "dup_key.jsonl", "{\"k\":\"a\",\"k\":\"b\"}\n", 0, "", 1);
    text("an array at the top", "array.jsonl", "[{\"k\":\"a\"}]\n", 1,
        "{file} row 1 (line 1): not a JSON object (each line must be one {...} object)", 0);
    text("a number at the top", "number.jsonl", "42\n", 1, "{file} row 1 (line 1): not a JSON object", 0);
    text("a string at the top", "string.jsonl", "\"k\"\n", 1, "{file} row 1 (line 1): not a JSON object", 0);
    text("null at the top", "null.jsonl", "null\n", 1, "{file} row 1 (line 1): not a JSON object", 0);
    text("a whole JSON array file", "pretty.jsonl", "[\n{\"k\":\"a\"}\n]\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a pretty-printed object over lines", "multiline.jsonl", "{\n\"k\":\"a\"\n}\n", 1,
        "{file} row 1 (line 1): not valid JSON", 0);
    text("a comment line", "comment.jsonl", "// rows\n{\"k\":\"a\"}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("single quotes", "single.jsonl", "{'k':'a'}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("an unquoted name", "unquoted.jsonl", "{k:\"a\"}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a raw tab inside a string", "tab.jsonl", "{\"k\":\"a\tb\"}\n", 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a \\u0000 escape (a legal character, stored)", "nul.jsonl", "{\"k\":\"a\",\"s\":\"x\\u0000y\"}\n", 0, "", 1);
    text("nesting 2,000 deep", "deep.jsonl", "{\"k\":\"a\",\"d\":" + "[".repeat(2_000) + "]".repeat(2_000) + "}\n", 1,
        "{file} row 1 (line 1): not valid JSON: Document nesting depth (1001) exceeds the maximum allowed", 0);
    text("a 2 MB value (over the payload limit)", "big.jsonl", "{\"k\":\"a\",\"s\":\"" + "y".repeat(2_000_000) + "\"}\n",
        1, "{file} row 1 (line 1): field 'payload_json' ", 0);
    text("CRLF line ends", "crlf.jsonl", "{\"k\":\"a\"}\r\n{\"k\":\"b\"}\r\n", 0, "", 2);
    text("blank and whitespace lines (skipped)", "blank.jsonl", "\n  \n{\"k\":\"a\"}\n\t\n", 0, "", 1);
    text("only blank lines", "blank_only.jsonl", "\n\n\n", 0, "", 0);
    text("a bad line between good ones stops there", "stop.jsonl", "{\"k\":\"a\"}\n[1]\n{\"k\":\"b\"}\n", 1,
        "{file} row 2 (line 2): not a JSON object", 1);
    add("every line bad with --skip-bad", "all_bad.jsonl", bytes("[1]\n2\n\"x\"\n".getBytes(StandardCharsets.UTF_8)),
        TYPED, List.of("--key", "k", "--skip-bad"), 1, "every row read was bad (3), nothing was appended", 0);
    text("a TIMESTAMP column of year 10000", "year.jsonl", "{\"k\":\"a\",\"t\":\"10000-01-01T00:00:00\"}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.t' ", 0);
    text("a BIGINT as true", "bool_n.jsonl", "{\"k\":\"a\",\"n\":true}\n", 1,
        "{file} row 1 (line 1): field 'payload_json.n' must be a 64-bit integer", 0);
  }

  private static final MessageType PARQUET_SCHEMA = MessageTypeParser.parseMessageType(
      "message root { optional binary k (STRING); optional int64 n; }");

  /** A Parquet file of {@code (k, n)} rows; a null k or n is left unset. */
  private static Maker parquet(MessageType schema, Object[]... rows) {
    return file -> {
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
          .withConf(new PlainParquetConfiguration()).build()) {
        for (Object[] row : rows) {
          Group g = groups.newGroup();
          for (int i = 0; i < row.length; i++) {
            String name = schema.getFieldName(i);
            if (row[i] instanceof String s) {
              g.add(name, s);
            } else if (row[i] instanceof Long l) {
              g.add(name, l);
            } else if (row[i] instanceof Double d) {
              g.add(name, d);
            } else if (row[i] instanceof Integer n) {
              g.add(name, n);
            }
          }
          writer.write(g);
        }
      }
    };
  }

  private void parquet() {
    Maker good = parquet(PARQUET_SCHEMA, new Object[] {"a", 1L}, new Object[] {"b", 2L});
    add("a Parquet file cut in half", "cut.parquet", file -> {
      good.make(file);
      byte[] all = Files.readAllBytes(file);
      Files.write(file, java.util.Arrays.copyOf(all, all.length / 2));
    }, TYPED, List.of("--key", "k"), 1, "{file}: not a readable Parquet file", 0);
    add("a Parquet file without its last byte", "cut1.parquet", file -> {
      good.make(file);
      byte[] all = Files.readAllBytes(file);
      Files.write(file, java.util.Arrays.copyOf(all, all.length - 1));
    }, TYPED, List.of("--key", "k"), 1, "{file}: not a readable Parquet file", 0);
    add("a Parquet file with its footer length corrupted", "footer.parquet", file -> {
      good.make(file);
      byte[] all = Files.readAllBytes(file);
      all[all.length - 8] = (byte) 0x7F;
      all[all.length - 5] = (byte) 0x7F;
      Files.write(file, all);
    }, TYPED, List.of("--key", "k"), 1, "{file}: not a readable Parquet file", 0);
    text("text named .parquet", "text.parquet", "this is not parquet at all", 1, "{file}: not a readable Parquet file", 0);
    text("an empty .parquet", "empty.parquet", "", 1, "{file}: not a readable Parquet file", 0);
    text("only the magic number", "magic.parquet", "PAR1", 1, "{file}: not a readable Parquet file", 0);
    text("magic at both ends, nothing between", "magic2.parquet", "PAR1PAR1", 1, "{file}: not a readable Parquet file", 0);
    text("a CSV named .parquet", "csv.parquet", "k,n\na,1\n", 1, "{file}: not a readable Parquet file", 0);
    add("a Parquet file read with --format csv", "as_csv.parquet", good, TYPED, List.of("--key", "k", "--format", "csv"),
        1, "{file} line 1: not UTF-8 text (a malformed byte sequence); convert the file to UTF-8", 0);
    add("a good Parquet file (stored)", "good.parquet", good, TYPED, List.of("--key", "k"), 0, "", 2);
    add("a Parquet string where BIGINT is declared", "string_n.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary k (STRING); optional binary n (STRING); }"), new Object[] {"a", "one"}),
        TYPED, List.of("--key", "k"), 1, "{file} row 1: field 'payload_json.n' must be a 64-bit integer", 0);
    add("a Parquet double where BIGINT is declared", "double_n.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary k (STRING); optional double n; }"), new Object[] {"a", 1.5}),
        TYPED, List.of("--key", "k"), 1, "{file} row 1: field 'payload_json.n' must be a 64-bit integer", 0);
    add("a Parquet NaN where BIGINT is declared", "nan_n.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary k (STRING); optional double n; }"), new Object[] {"a", Double.NaN}),
        TYPED, List.of("--key", "k"), 1, "{file} row 1: column 'n' value NaN is not a finite number", 0);
    add("a Parquet NaN into a stream without columns", "nan_free.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary k (STRING); optional double x; }"), new Object[] {"a", Double.NaN}),
        FREE, List.of("--key", "k"), 1, "{file} row 1: column 'x' value NaN is not a finite number", 0);
    add("a Parquet int32 key (its text is the key)", "int_key.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional int32 k; }"), new Object[] {7}), TYPED, List.of("--key", "k"), 0, "", 1);
    add("a Parquet file without the key column", "no_key.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary name (STRING); }"), new Object[] {"a"}), TYPED, List.of("--key", "k"), 1,
        "{file} row 1: key field 'k' is missing; fields: name", 0);
    add("a Parquet null key after a good row", "null_key.parquet", parquet(PARQUET_SCHEMA, new Object[] {"a", 1L},
        new Object[] {null, 2L}), TYPED, List.of("--key", "k"), 1, "{file} row 2: key field 'k' is missing (null)", 1);
    add("a nested Parquet column", "nested.parquet", parquet(MessageTypeParser.parseMessageType(
        "message root { optional binary k (STRING); optional group g { optional int64 x; } }"), new Object[] {"a"}),
        TYPED, List.of("--key", "k"), 1, "{file}: column 'g' is a nested or repeated Parquet type", 0);
    add("a Parquet file of no rows", "no_rows.parquet", parquet(PARQUET_SCHEMA), TYPED, List.of("--key", "k"), 0, "", 0);
  }

  private void times() {
    List<String> time = List.of("--key", "k", "--time", "t");
    add("epoch 0", "epoch0.jsonl", bytes("{\"k\":\"a\",\"t\":0}\n".getBytes(StandardCharsets.UTF_8)), FREE, time, 1,
        "{file} row 1 (line 1): time field 't': value '0' is 1970-01-01T00:00:00Z (epoch 0)", 0);
    add("epoch 0 as ISO-8601", "epoch0_iso.jsonl", bytes("{\"k\":\"a\",\"t\":\"1970-01-01T00:00:00Z\"}\n".getBytes(
        StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 1 (line 1): time field 't': value '1970-01-01T00:00:00Z' is"
        + " 1970-01-01T00:00:00Z (epoch 0)", 0);
    add("a negative epoch (before 1970)", "negative.jsonl", bytes("{\"k\":\"a\",\"t\":-86400000}\n".getBytes(
        StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 1 (line 1): field 'event_time_ms' ", 0);
    add("epoch milliseconds beyond a long", "beyond_long.jsonl", bytes("{\"k\":\"a\",\"t\":99999999999999999999}\n"
        .getBytes(StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 1 (line 1): time field 't': value"
        + " 99999999999999999999 is beyond epoch milliseconds' range (a 64-bit integer)", 0);
    add("epoch milliseconds as text beyond a long", "beyond_text.csv", bytes("k,t\na,99999999999999999999\n".getBytes(
        StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 1 (line 2): time field 't': value '99999999999999999999' is"
        + " beyond epoch milliseconds' range", 0);
    add("1e30 as a time", "float_time.jsonl", bytes("{\"k\":\"a\",\"t\":1e30}\n".getBytes(StandardCharsets.UTF_8)), FREE,
        time, 1, "{file} row 1 (line 1): time field 't': value 1.0E30 is beyond epoch milliseconds' range", 0);
    add("an unparsable time", "yesterday.csv", bytes("k,t\na,yesterday\n".getBytes(StandardCharsets.UTF_8)), FREE, time,
        1, "{file} row 1 (line 2): time field 't': value 'yesterday' is not epoch milliseconds nor an ISO-8601 date-time", 0);
    add("month 13", "month13.csv", bytes("k,t\na,2024-13-01T00:00:00\n".getBytes(StandardCharsets.UTF_8)), FREE, time, 1,
        "{file} row 1 (line 2): time field 't': value '2024-13-01T00:00:00' is not epoch milliseconds nor an ISO-8601", 0);
    add("February 30", "feb30.csv", bytes("k,t\na,2024-02-30\n".getBytes(StandardCharsets.UTF_8)), FREE, time, 1,
        "{file} row 1 (line 2): time field 't': value '2024-02-30' is not epoch milliseconds nor an ISO-8601", 0);
    add("an offset of +25:00", "offset.csv", bytes("k,t\na,2024-01-01T00:00:00+25:00\n".getBytes(StandardCharsets.UTF_8)),
        FREE, time, 1, "{file} row 1 (line 2): time field 't': value '2024-01-01T00:00:00+25:00' is not epoch", 0);
    add("a time in year 9999 (far ahead of the clock)", "future.csv", bytes("k,t\na,9999-12-31T23:59:59Z\n".getBytes(
        StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 1 (line 2): field 'event_time_ms' ", 0);
    add("the time field missing", "no_time.jsonl", bytes("{\"k\":\"a\"}\n".getBytes(StandardCharsets.UTF_8)), FREE, time, 1,
        "{file} row 1 (line 1): time field 't' is missing; fields: k", 0);
    add("the time field null", "null_time.jsonl", bytes("{\"k\":\"a\",\"t\":null}\n".getBytes(StandardCharsets.UTF_8)),
        FREE, time, 1, "{file} row 1 (line 1): time field 't' is missing (null)", 0);
    add("the time field an object", "object_time.jsonl", bytes("{\"k\":\"a\",\"t\":{}}\n".getBytes(StandardCharsets.UTF_8)),
        FREE, time, 1, "{file} row 1 (line 1): time field 't': value {} is not epoch milliseconds nor an ISO-8601", 0);
    add("the time field empty in CSV", "empty_time.csv", bytes("k,t\na,\n".getBytes(StandardCharsets.UTF_8)), FREE, time,
        1, "{file} row 1 (line 2): time field 't'", 0);
    add("a good time then an unparsable one", "late_time.csv", bytes("k,t\na,2024-01-01\nb,soon\n".getBytes(
        StandardCharsets.UTF_8)), FREE, time, 1, "{file} row 2 (line 3): time field 't': value 'soon'", 1);
    add("a 19-digit time text", "digits19.csv", bytes("k,t\na,1234567890123456789\n".getBytes(StandardCharsets.UTF_8)),
        FREE, time, 1, "{file} row 1 (line 2): time field 't': value '1234567890123456789' is beyond", 0);
  }

  private void keys() {
    text("an empty key in CSV", "empty_key.csv", "k,n\n,1\n", 1, "{file} row 1 (line 2): key field 'k' is empty", 0);
    text("an empty key in JSON Lines", "empty_key.jsonl", "{\"k\":\"\"}\n", 1, "{file} row 1 (line 1): key field 'k' is empty", 0);
    text("a null key", "null_key.jsonl", "{\"k\":null}\n", 1, "{file} row 1 (line 1): key field 'k' is missing (null)", 0);
    text("an object key", "object_key.jsonl", "{\"k\":{\"a\":1}}\n", 1,
        "{file} row 1 (line 1): key field 'k' is not a scalar: {\"a\":1}", 0);
    text("an array key", "array_key.jsonl", "{\"k\":[1]}\n", 1, "{file} row 1 (line 1): key field 'k' is not a scalar", 0);
    text("a number key (its text)", "number_key.jsonl", "{\"k\":5}\n", 0, "", 1);
    text("a boolean key (its text)", "bool_key.jsonl", "{\"k\":true}\n", 0, "", 1);
    text("a key of 2,000 bytes", "huge_key.csv", "k,n\n" + "k".repeat(2_000) + ",1\n", 1,
        "{file} row 1 (line 2): field 'key' ", 0);
    text("a key of 1,024 bytes (the limit, stored)", "limit_key.csv", "k,n\n" + "k".repeat(1_024) + ",1\n", 0, "", 1);
    text("a key of 342 three-byte characters (1,026 bytes)", "utf8_key.csv", "k,n\n" + "\u20ac".repeat(342) + ",1\n", 1,
        "{file} row 1 (line 2): field 'key' ", 0);
    text("the key column missing", "no_key.csv", "id,n\na,1\n", 1, "{file} row 1 (line 2): key field 'k' is missing; fields: id, n", 0);
    text("the key column missing in JSON Lines", "no_key.jsonl", "{\"id\":\"a\"}\n", 1,
        "{file} row 1 (line 1): key field 'k' is missing; fields: id", 0);
    text("an empty object", "empty_object.jsonl", "{}\n", 1, "{file} row 1 (line 1): key field 'k' is missing; fields: (none)", 0);
    text("a whitespace key (stored)", "space_key.csv", "k,n\n\" \",1\n", 0, "", 1);
    text("a key with a newline (stored)", "newline_key.csv", "k,n\n\"a\nb\",1\n", 0, "", 1);
    text("an empty key after good rows", "empty_late.csv", "k,n\na,1\nb,2\n,3\n", 1,
        "{file} row 3 (line 4): key field 'k' is empty", 2);
  }

  private void files() {
    add("a missing file", "missing.csv", file -> { }, TYPED, List.of("--key", "k"), 1, "no such file: {file}", 0);
    add("a directory", "dir.csv", Files::createDirectory, TYPED, List.of("--key", "k"), 1,
        "a directory, not a file: {file}", 0);
    add("a FIFO", "fifo.csv", file -> {
      Process p = new ProcessBuilder("mkfifo", file.toString()).start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("mkfifo failed");
      }
    }, TYPED, List.of("--key", "k"), 1, "not a regular file (a FIFO, a device or a socket): {file}", 0);
    add("/dev/null by a symbolic link", "devnull.csv", file -> Files.createSymbolicLink(file, Path.of("/dev/null")),
        TYPED, List.of("--key", "k"), 1, "not a regular file (a FIFO, a device or a socket): {file}", 0);
    add("a dangling symbolic link", "dangling.csv", file -> Files.createSymbolicLink(file, file.resolveSibling("gone")),
        TYPED, List.of("--key", "k"), 1, "no such file: {file}", 0);
    text("an empty CSV", "empty.csv", "", 1, "{file}: empty file: a CSV file needs a header row naming the fields", 0);
    text("an empty JSON Lines file", "empty.jsonl", "", 0, "", 0);
    text("an unknown extension", "data.txt", "k,n\na,1\n", 1,
        "cannot tell the format of {file} from its extension: pass --format csv, jsonl or parquet", 0);
    add("JSON Lines read with --format csv (a header of one field, no rows)", "as_csv.jsonl",
        bytes("{\"k\":\"a\"}\n".getBytes(StandardCharsets.UTF_8)), TYPED, List.of("--key", "k", "--format", "csv"), 0, "", 0);
    add("CSV read with --format jsonl", "as_jsonl.csv", bytes("k,n\na,1\n".getBytes(StandardCharsets.UTF_8)), TYPED,
        List.of("--key", "k", "--format", "jsonl"), 1, "{file} row 1 (line 1): not valid JSON", 0);
    text("a file name with spaces and quotes", "a 'b' \"c\".csv", "k,n\na,1\n", 0, "", 1);
    // the error stays one line: control characters are shown escaped (backslash-u000A)
    text("a file name with a newline", "new\nline.csv", "k,n\n,1\n", 1, "{file} row 1 (line 2): key field 'k' is empty", 0);
    text("a file name with a carriage return and a tab", "cr\rtab\t.csv", "k,n\n,1\n", 1,
        "{file} row 1 (line 2): key field 'k' is empty", 0);
  }
}
