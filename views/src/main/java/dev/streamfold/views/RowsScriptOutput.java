package dev.streamfold.views;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The reply of the rows script ({@link RedisScripts#ROWS}), decoded as it arrives: {@code {source view,
 * version, row 1, row 2, ...}} with each row a flat field/value array (HGETALL's reply), or an empty array when nothing is
 * served. Replaces lettuce's generic nested-list output ({@code ScriptOutputType.MULTI}), which built a
 * {@code List<Object>} per row that the reader then copied into a map: the replies are decoded on lettuce's
 * I/O thread, the busiest thread of the read path in the serving profile.
 *
 * <p>Depth is counted here from the announced array lengths, not from lettuce's {@code complete(depth)}
 * calls: the outermost array may or may not be announced through {@link #multi}, so an array that starts
 * before any element counts as the outermost one. Elements other than bulk strings and arrays (which the
 * script does not return) are ignored. One instance per command; confined to lettuce's I/O thread until the
 * command completes.
 */
final class RowsScriptOutput extends CommandOutput<String, String, RowsScriptOutput.Reply> {
  /**
   * A decoded reply.
   *
   * @param source the view (or virtual state) whose rows were read; null when nothing is served
   * @param version the version read; null when nothing is served
   * @param rows one flat field/value array per requested row key, in order (empty when the row is absent)
   */
  record Reply(String source, String version, List<String[]> rows) {
    boolean served() {
      return source != null && version != null;
    }
  }

  private final List<String[]> rows;
  private String source;
  private String version;
  /** Elements of the outermost array seen so far (its own elements only). */
  private int topIndex;
  private boolean started;
  /** The row array being filled, or null at the outermost level. */
  private String[] row;
  private int rowFilled;

  /**
   * Create the output of one read.
   *
   * @param rowKeys how many row keys the read asks for (sizes the list)
   */
  RowsScriptOutput(int rowKeys) {
    super(StringCodec.UTF8, null);
    this.rows = new ArrayList<>(rowKeys);
  }

  @Override
  public void multi(int count) {
    if (!started) {
      started = true; // the outermost array
      return;
    }
    started = true;
    if (row != null) {
      return; // not produced by the script (a row is a flat array)
    }
    String[] next = new String[Math.max(0, count)];
    topIndex++;
    if (next.length == 0) {
      rows.add(next);
    } else {
      row = next;
      rowFilled = 0;
    }
  }

  @Override
  public void set(ByteBuffer bytes) {
    element(bytes == null ? null : codec.decodeValue(bytes));
  }

  @Override
  public void setSingle(ByteBuffer bytes) {
    set(bytes);
  }

  @Override
  public void set(long integer) {
    element(Long.toString(integer));
  }

  private void element(String text) {
    started = true;
    if (row != null) {
      row[rowFilled++] = text;
      if (rowFilled == row.length) {
        rows.add(row);
        row = null;
      }
      return;
    }
    switch (topIndex++) {
      case 0 -> source = text;
      case 1 -> version = text;
      default -> rows.add(new String[0]); // a row that is not an array: absent
    }
  }

  @Override
  public Reply get() {
    return new Reply(source, version, rows);
  }
}
