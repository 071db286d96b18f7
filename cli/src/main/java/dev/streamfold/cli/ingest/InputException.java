package dev.streamfold.cli.ingest;

/**
 * A row of an input file cannot become an event: a missing key or time field, a value of the wrong
 * type, a line that is not a JSON object, a malformed CSV record. The message names the file, the row
 * (1-based, data rows only) and, where it helps, the line and the field.
 */
public final class InputException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long row;

  /**
   * Create the exception.
   *
   * @param where the file and row, e.g. {@code flights.csv row 12 (line 13)}
   * @param row the 1-based data row, 0 when not about one row
   * @param problem what is wrong, e.g. {@code key field 'origin' is missing}
   */
  public InputException(String where, long row, String problem) {
    super(where + ": " + problem);
    this.row = row;
  }

  /** The 1-based data row, 0 when the problem is not about one row. */
  public long row() {
    return row;
  }
}
