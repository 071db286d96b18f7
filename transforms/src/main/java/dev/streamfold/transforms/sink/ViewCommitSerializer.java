package dev.streamfold.transforms.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Binary form of {@link ViewCommit} in checkpoints (version 2): position, events applied, events behind
 * the watermark, deletes, then upserts with their fields; strings as UTF-8 bytes after an int length.
 * Version 1 (no events behind the watermark) is still read, so checkpoints taken before stay restorable.
 */
public final class ViewCommitSerializer implements SimpleVersionedSerializer<ViewCommit> {
  static final int VERSION = 2;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(ViewCommit commit) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeString(out, commit.position());
      out.writeLong(commit.eventsApplied());
      out.writeLong(commit.eventsBehindWatermark());
      out.writeInt(commit.deletes().size());
      for (String key : commit.deletes()) {
        writeString(out, key);
      }
      out.writeInt(commit.upserts().size());
      for (Map.Entry<String, Map<String, String>> row : commit.upserts().entrySet()) {
        writeString(out, row.getKey());
        out.writeInt(row.getValue().size());
        for (Map.Entry<String, String> field : row.getValue().entrySet()) {
          writeString(out, field.getKey());
          writeString(out, field.getValue());
        }
      }
    }
    return bytes.toByteArray();
  }

  @Override
  public ViewCommit deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1 && version != VERSION) {
      throw new IOException("unknown view commit serializer version " + version + " (known: 1, " + VERSION + ")");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      String position = readString(in);
      long events = in.readLong();
      long behind = version >= 2 ? in.readLong() : 0;
      int deleteCount = in.readInt();
      List<String> deletes = new ArrayList<>(deleteCount);
      for (int i = 0; i < deleteCount; i++) {
        deletes.add(readString(in));
      }
      int upsertCount = in.readInt();
      Map<String, Map<String, String>> upserts = new LinkedHashMap<>();
      for (int i = 0; i < upsertCount; i++) {
        String key = readString(in);
        int fields = in.readInt();
        Map<String, String> row = new LinkedHashMap<>();
        for (int f = 0; f < fields; f++) {
          row.put(readString(in), readString(in));
        }
        upserts.put(key, row);
      }
      return new ViewCommit(upserts, deletes, position, events, behind);
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] utf8 = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(DataInputStream in) throws IOException {
    byte[] utf8 = new byte[in.readInt()];
    in.readFully(utf8);
    return new String(utf8, java.nio.charset.StandardCharsets.UTF_8);
  }
}
