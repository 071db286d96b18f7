package dev.streamfold.api.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.Event;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WireProblemsTest {
  private static final AppendRequest APPEND = AppendRequest.getDefaultInstance();

  /** An append request with texts that hold the marker {@code @@}, which {@link #broken} breaks. */
  private static AppendRequest request(String tenant, String key1, String payload1, String headerName,
      String headerValue) {
    return AppendRequest.newBuilder().setTenant(tenant).setStream("s").setRequestSeq(5)
        .addEvents(Event.newBuilder().setKey("k0").setPayloadJson("{}"))
        .addEvents(Event.newBuilder().setKey(key1).setPayloadJson(payload1).putHeaders(headerName, headerValue))
        .build();
  }

  /** The bytes of a message with the first {@code @@} turned into {@code 0xFF 0xFE}: not UTF-8. */
  private static byte[] broken(com.google.protobuf.Message message) {
    byte[] bytes = message.toByteArray();
    for (int i = 0; i + 1 < bytes.length; i++) {
      if (bytes[i] == '@' && bytes[i + 1] == '@') {
        bytes[i] = (byte) 0xFF;
        bytes[i + 1] = (byte) 0xFE;
        return bytes;
      }
    }
    throw new AssertionError("no marker");
  }

  /** What WireProblems finds, checked against what protobuf-java's parser of the type says of the bytes. */
  private static WireProblems.Found find(com.google.protobuf.Message type, byte[] bytes) {
    boolean parses;
    try {
      type.getParserForType().parseFrom(bytes);
      parses = true;
    } catch (InvalidProtocolBufferException e) {
      parses = false;
    }
    WireProblems.Found found = WireProblems.find(type.getDescriptorForType(), bytes);
    assertThat(found == null).as("WireProblems agrees with protobuf-java: %s", found).isEqualTo(parses);
    return found;
  }

  @Test
  void aValidRequestHasNoProblem() {
    assertThat(find(APPEND, request("t", "k", "{}", "h", "v").toByteArray())).isNull();
    assertThat(find(APPEND, new byte[0])).isNull();
  }

  @Test
  void namesTheStringFieldThatIsNotUtf8() {
    WireProblems.Found key = find(APPEND, broken(request("t", "k@@", "{}", "h", "v")));
    assertThat(key.field()).isEqualTo("events[1].key");
    assertThat(key.description()).isEqualTo("field 'events[1].key' is not valid UTF-8: byte 0xFF at offset 1 of its"
        + " 3 bytes (protobuf string fields hold UTF-8 text)");
    assertThat(find(APPEND, broken(request("@@t", "k", "{}", "h", "v"))).field()).isEqualTo("tenant");
    assertThat(find(APPEND, broken(request("t", "k", "{\"a\":\"@@\"}", "h", "v"))).field())
        .isEqualTo("events[1].payload_json");
  }

  @Test
  void namesAMapValueByItsKeyAndAMapKeyByItsEntry() {
    WireProblems.Found value = find(APPEND, broken(request("t", "k", "{}", "x-trace", "v@@")));
    assertThat(value.field()).isEqualTo("events[1].headers[\"x-trace\"]");
    assertThat(value.description()).startsWith("field 'events[1].headers[\"x-trace\"]' is not valid UTF-8");
    WireProblems.Found key = find(APPEND, broken(request("t", "k", "{}", "h@@", "v")));
    assertThat(key.field()).isEqualTo("events[1].headers");
    assertThat(key.description()).startsWith("a key of map field 'events[1].headers' (entry 0) is not valid UTF-8");
  }

  @Test
  void namesAFieldOfANestedRepeatedMessage() {
    CreateStreamRequest create = CreateStreamRequest.newBuilder().setTenant("t").setName("s")
        .addColumns(Column.newBuilder().setName("a").setType("INT"))
        .addColumns(Column.newBuilder().setName("b").setType("INT").setDefaultJson("\"@@\""))
        .build();
    assertThat(find(CreateStreamRequest.getDefaultInstance(), broken(create)).field()).isEqualTo("columns[1].default_json");
  }

  @Test
  void bytesThatAreNotProtobufAreSaidToBeSoWithWhereTheyBreak() {
    byte[] text = "hello, this is not protobuf".getBytes(StandardCharsets.US_ASCII);
    WireProblems.Found found = find(APPEND, text);
    assertThat(found.description()).startsWith("not protobuf: ").contains(" at byte ");
    byte[] sevens = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
        (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
    assertThat(find(APPEND, sevens).description()).isEqualTo("not protobuf: a varint longer than 10 bytes at byte 0");
    assertThat(find(APPEND, new byte[] {0x0F}).description())
        .isEqualTo("not protobuf: wire type 7 (protobuf has 0 to 5) at byte 0");
    assertThat(find(APPEND, new byte[] {0x00}).description())
        .isEqualTo("not protobuf: field number 0 (no message has one) at byte 0");
    assertThat(find(APPEND, new byte[] {0x0C}).description())
        .isEqualTo("not protobuf: an end-group tag of field 1 that closes no group at byte 0");
  }

  @Test
  void aCutRequestNamesTheFieldItBreaksIn() {
    byte[] whole = request("t", "k", "{\"a\":1}", "h", "v").toByteArray();
    byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 3);
    WireProblems.Found found = find(APPEND, cut);
    assertThat(found.field()).isEqualTo("events[1]");
    assertThat(found.description()).startsWith("not protobuf: a length of ").endsWith(", in field 'events[1]'");
  }

  @Test
  void groupsNestedBeyondProtobufsLimitAreRefused() {
    ByteArrayOutputStream deep = new ByteArrayOutputStream();
    for (int i = 0; i < 101; i++) {
      deep.write(0x7B); // field 15, start group: unknown to AppendRequest
    }
    for (int i = 0; i < 101; i++) {
      deep.write(0x7C); // its end group
    }
    assertThat(find(APPEND, deep.toByteArray()).description()).contains("groups nested deeper than 100 levels");
    ByteArrayOutputStream ok = new ByteArrayOutputStream();
    for (int i = 0; i < 99; i++) {
      ok.write(0x7B);
    }
    for (int i = 0; i < 99; i++) {
      ok.write(0x7C);
    }
    assertThat(find(APPEND, ok.toByteArray())).isNull();
  }

  @Test
  void mapKeysAreQuotedPrintably() {
    assertThat(WireProblems.quote("a\"b\\c\u0001é")).isEqualTo("\"a\\\"b\\\\c\\u0001\\u00e9\"");
    assertThat(WireProblems.quote("x".repeat(100))).isEqualTo("\"" + "x".repeat(40) + "...\"");
  }

  /** Random damage to a request: WireProblems finds a problem exactly when protobuf-java refuses the bytes. */
  @Test
  void agreesWithProtobufOnDamagedRequests() {
    byte[] whole = request("tenant", "kéy", "{\"a\":\"b\"}", "h", "v").toBuilder()
        .addEvents(Event.newBuilder().setKey("z").setEventTimeMs(123_456_789).setIdempotencyKey("i"))
        .build().toByteArray();
    Random random = new Random(24);
    int refused = 0;
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] bytes = whole.clone();
      int damage = 1 + random.nextInt(3);
      for (int d = 0; d < damage; d++) {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
      }
      if (random.nextInt(4) == 0) {
        bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
      }
      if (find(APPEND, bytes) != null) {
        refused++;
      }
    }
    assertThat(refused).as("most damage breaks the request").isGreaterThan(5_000);
  }
}
