package dev.streamfold.api.grpc;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.WireFormat;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds the first thing protobuf-java refuses in the bytes of a message, by the path of its field
 * ({@code events[3].key}, {@code events[0].headers["x"]}): a string field that is not valid UTF-8, or a
 * break in the wire format. Read once, from the bytes, after the parser refused them: protobuf-java's own
 * error ({@code "Protocol message had invalid UTF-8."}) names no field.
 *
 * <p>The wire rules are protobuf-java's: a declared field sent with another wire type is an unknown field
 * (not checked), a packable repeated field may come packed or not, string fields are checked where the
 * descriptor says so ({@link FieldDescriptor#needsUtf8Check()}, every {@code string} of a proto3 file), and
 * messages and groups nest at most {@value #MAX_DEPTH} levels ({@code CodedInputStream}'s default limit).
 */
final class WireProblems {
  /** Deepest nesting of messages and groups, protobuf-java's default recursion limit. */
  static final int MAX_DEPTH = 100;
  /** Longest map key quoted in a path, characters. */
  private static final int MAX_QUOTED_KEY_CHARS = 40;

  private final byte[] bytes;
  private int pos;
  /** Path of the field being read, for an error in the wire format; null at the top level. */
  private String field;

  private WireProblems(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Find the first problem protobuf-java has with a message's bytes.
   *
   * @param type the message type the bytes should be; null when unknown (then only the wire format is checked)
   * @param bytes the message as received
   * @return what is wrong and where, or null when the bytes are a valid message of the type
   */
  static Found find(Descriptor type, byte[] bytes) {
    WireProblems walk = new WireProblems(bytes);
    try {
      walk.message(type, bytes.length, "", 0, 0);
      return null;
    } catch (Problem p) {
      return new Found(p.field, p.getMessage());
    } catch (Malformed m) {
      return new Found(m.field, "not protobuf: " + m.getMessage() + " at byte " + m.offset
          + (m.field == null ? "" : ", in field '" + m.field + "'"));
    }
  }

  /**
   * The first problem of a message's bytes.
   *
   * @param field the path of the field it is in (e.g. {@code events[3].key}, {@code events[0].headers["x"]}),
   *     or null when it is outside every declared field
   * @param description what is wrong, naming the field (e.g. {@code field 'events[3].key' is not valid UTF-8:
   *     byte 0xFF at offset 1 of its 4 bytes (...)})
   */
  record Found(String field, String description) {}

  /**
   * Read the fields of a message or group up to {@code end} (exclusive).
   *
   * @param type its type, or null for an unknown field's group
   * @param prefix the path of the message followed by '.', or "" at the top level
   * @param depth levels of messages and groups around it
   * @param group the field number of the group being read, or 0 for a length-delimited message
   */
  private void message(Descriptor type, int end, String prefix, int depth, int group) {
    Map<Integer, Integer> occurrences = new HashMap<>();
    while (pos < end) {
      int tagAt = pos;
      int tag = (int) varint(end); // protobuf-java keeps a tag's low 32 bits too
      int number = tag >>> 3;
      int wire = tag & 7;
      if (number == 0) {
        throw new Malformed("field number 0 (no message has one)", tagAt, field);
      }
      if (wire == WireFormat.WIRETYPE_END_GROUP) {
        if (number == group) {
          return;
        }
        throw new Malformed("an end-group tag of field " + number + " that closes no group", tagAt, field);
      }
      FieldDescriptor f = type == null ? null : type.findFieldByNumber(number);
      if (f == null) {
        skip(wire, number, end, depth, tagAt);
        continue;
      }
      int index = occurrences.merge(number, 1, Integer::sum) - 1;
      String path = prefix + f.getName() + (f.isRepeated() ? "[" + index + "]" : "");
      if (f.isMapField() && wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        String outer = field;
        field = path;
        int entryEnd = length(end);
        nested(path, depth);
        entry(f, prefix + f.getName(), index, entryEnd, depth + 1);
        field = outer;
      } else if (wire == f.getLiteType().getWireType()) {
        value(f, path, wire, number, end, depth, tagAt);
      } else if (f.isPackable() && wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        String outer = field;
        field = path;
        int packedEnd = length(end);
        while (pos < packedEnd) {
          skip(f.getLiteType().getWireType(), number, packedEnd, depth, pos);
        }
        field = outer;
      } else {
        skip(wire, number, end, depth, tagAt); // another wire type: protobuf-java keeps it as an unknown field
      }
    }
    if (group != 0) {
      throw new Malformed("a group of field " + group + " that is never closed", end, field);
    }
  }

  /** Read one value of a declared field sent with its own wire type. */
  private void value(FieldDescriptor f, String path, int wire, int number, int end, int depth, int tagAt) {
    String outer = field;
    field = path;
    switch (f.getType()) {
      case STRING -> {
        int valueEnd = length(end);
        if (f.needsUtf8Check()) {
          utf8(path, "field '" + path + "'", pos, valueEnd - pos);
        }
        pos = valueEnd;
      }
      case MESSAGE -> {
        int valueEnd = length(end);
        nested(path, depth);
        message(f.getMessageType(), valueEnd, path + ".", depth + 1, 0);
      }
      case GROUP -> {
        nested(path, depth);
        message(f.getMessageType(), end, path + ".", depth + 1, number);
      }
      default -> skip(wire, number, end, depth, tagAt);
    }
    field = outer;
  }

  /**
   * Read a map entry: key (field 1) and value (field 2), naming the value by its key when the key came
   * first (as every protobuf writer sends it).
   *
   * @param depth levels of messages around the entry's fields, the entry included
   */
  private void entry(FieldDescriptor map, String mapPath, int index, int end, int depth) {
    Descriptor entry = map.getMessageType();
    FieldDescriptor keyField = entry.findFieldByNumber(1);
    FieldDescriptor valueField = entry.findFieldByNumber(2);
    String key = null;
    while (pos < end) {
      int tagAt = pos;
      int tag = (int) varint(end);
      int number = tag >>> 3;
      int wire = tag & 7;
      if (number == 0) {
        throw new Malformed("field number 0 (no message has one)", tagAt, field);
      }
      if (wire == WireFormat.WIRETYPE_END_GROUP) {
        throw new Malformed("an end-group tag of field " + number + " that closes no group", tagAt, field);
      }
      FieldDescriptor f = number == 1 ? keyField : number == 2 ? valueField : null;
      if (f == null || wire != f.getLiteType().getWireType()) {
        skip(wire, number, end, depth, tagAt);
        continue;
      }
      if (number == 1) {
        int keyAt = pos;
        if (f.getType() == FieldDescriptor.Type.STRING) {
          int keyEnd = length(end);
          if (f.needsUtf8Check()) {
            utf8(mapPath, "a key of map field '" + mapPath + "' (entry " + index + ")", pos, keyEnd - pos);
          }
          key = quote(new String(bytes, pos, keyEnd - pos, StandardCharsets.UTF_8));
          pos = keyEnd;
        } else {
          skip(wire, number, end, depth, tagAt);
          key = f.getType() == FieldDescriptor.Type.BOOL ? String.valueOf(bytes[keyAt] != 0) : "entry " + index;
        }
      } else {
        value(f, mapPath + "[" + (key != null ? key : "entry " + index) + "]", wire, number, end, depth, tagAt);
      }
    }
  }

  /** Skip one value of an unknown field (or of a declared one sent with another wire type). */
  private void skip(int wire, int number, int end, int depth, int tagAt) {
    switch (wire) {
      case WireFormat.WIRETYPE_VARINT -> varint(end);
      case WireFormat.WIRETYPE_FIXED64 -> fixed(8, end);
      case WireFormat.WIRETYPE_FIXED32 -> fixed(4, end);
      case WireFormat.WIRETYPE_LENGTH_DELIMITED -> pos = length(end);
      case WireFormat.WIRETYPE_START_GROUP -> {
        if (depth + 1 > MAX_DEPTH) {
          throw new Malformed("groups nested deeper than " + MAX_DEPTH + " levels", tagAt, field);
        }
        message(null, end, "", depth + 1, number);
      }
      default -> throw new Malformed("wire type " + wire + " (protobuf has 0 to 5)", tagAt, field);
    }
  }

  private void nested(String path, int depth) {
    if (depth + 1 > MAX_DEPTH) {
      throw new Problem(path, "field '" + path + "' nests messages deeper than " + MAX_DEPTH
          + " levels, protobuf's limit");
    }
  }

  /**
   * Check that {@code length} bytes from {@code at} are UTF-8 as protobuf-java sees it.
   *
   * @param path the field's path
   * @param name how the description names it, e.g. {@code field 'events[3].key'}
   */
  private void utf8(String path, String name, int at, int length) {
    if (UnsafeByteOperations.unsafeWrap(bytes, at, length).isValidUtf8()) {
      return;
    }
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes, at, length);
    CoderResult result = decoder.decode(in, CharBuffer.allocate(length), true);
    String where = result.isError()
        ? ": byte 0x" + String.format("%02X", bytes[in.position()] & 0xff) + " at offset " + (in.position() - at)
            + " of its " + length + " bytes"
        : "";
    throw new Problem(path, name + " is not valid UTF-8" + where + " (protobuf string fields hold UTF-8 text)");
  }

  /** Read a length prefix and return where the value it announces ends. */
  private int length(int end) {
    int at = pos;
    long length = varint(end);
    if (length > Integer.MAX_VALUE) {
      throw new Malformed("a length of " + length + " bytes", at, field);
    }
    if (length > end - pos) {
      throw new Malformed("a length of " + length + " bytes, past the end of its message (" + (end - pos)
          + " bytes left)", at, field);
    }
    return pos + (int) length;
  }

  private void fixed(int size, int end) {
    if (end - pos < size) {
      throw new Malformed("a " + (size * 8) + "-bit value cut off by the end of its message", pos, field);
    }
    pos += size;
  }

  private long varint(int end) {
    int at = pos;
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new Malformed("a varint cut off by the end of its message", at, field);
      }
      byte b = bytes[pos++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new Malformed("a varint longer than 10 bytes", at, field);
  }

  /** A map key as Java would write it: {@code "x"}, non-printable ASCII escaped, shortened. */
  static String quote(String key) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < key.length(); i++) {
      if (i == MAX_QUOTED_KEY_CHARS) {
        out.append("...");
        break;
      }
      char c = key.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c >= ' ' && c <= '~') {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.append('"').toString();
  }

  /** A field whose content protobuf-java refuses (the message is complete). */
  private static final class Problem extends RuntimeException {
    private final String field;

    Problem(String field, String message) {
      super(message, null, false, false);
      this.field = field;
    }
  }

  /** A break in the wire format, at a byte offset of the message. */
  private static final class Malformed extends RuntimeException {
    private final int offset;
    private final String field;

    Malformed(String message, int offset, String field) {
      super(message, null, false, false);
      this.offset = offset;
      this.field = field;
    }
  }
}
