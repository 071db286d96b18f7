package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.testkit.resp.RawRespClient;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewSchema;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server over a socket, with rows in memory: pipelining, threading, protocol errors, binding. */
class RespServerTest {
  private static final ViewName DELAYS = new ViewName("acme", "delays");

  private final CountDownLatch release = new CountDownLatch(1);
  /** Reads of row "slow" complete (on another thread) only after {@link #release}, like a Redis stall. */
  private final InMemoryViewReader reader = new InMemoryViewReader() {
    @Override
    public java.util.concurrent.CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
      if (!rowKeys.contains("slow")) {
        return super.rowsWithSchemaAsync(name, rowKeys);
      }
      return CompletableFuture.supplyAsync(() -> {
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return rowsWithSchema(name, rowKeys);
      });
    }
  };
  private RespServer server;

  @BeforeEach
  void setUp() {
    reader.define(DELAYS, new ViewSchema(Map.of("airport", "STRING", "n", "BIGINT"), List.of("airport")));
    for (int i = 0; i < 100; i++) {
      reader.put(DELAYS, "A" + i, Map.of("n", Integer.toString(i)));
    }
    reader.put(DELAYS, "slow", Map.of("n", "-1"));
    server = new RespServer(reader, RespServerOptions.defaults().withDefaultTenant("acme")
        .withWorkerThreads(1).withCommandThreads(2)).start();
  }

  @AfterEach
  void tearDown() {
    release.countDown();
    server.close();
  }

  @Test
  void keepsReplyOrderOfPipelinedRequests() {
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int i = 0; i < 1000; i++) {
      batch.writeBytes(switch (i % 3) {
        case 0 -> RawRespClient.encode("HGET", "delays:A" + (i % 100), "n");
        case 1 -> RawRespClient.encode("ECHO", "e" + i);
        default -> RawRespClient.encode("PING");
      });
    }
    try (RawRespClient client = new RawRespClient(server.port())) {
      client.send(batch.toByteArray());
      for (int i = 0; i < 1000; i++) {
        String expected = switch (i % 3) {
          case 0 -> bulk(Integer.toString(i % 100));
          case 1 -> bulk("e" + i);
          default -> "+PONG\r\n";
        };
        assertThat(client.readReply()).as("reply %d", i).isEqualTo(expected);
      }
    }
  }

  @Test
  void slowReadsDoNotStallOtherConnections() throws Exception {
    try (RawRespClient slow = new RawRespClient(server.port());
         RawRespClient fast = new RawRespClient(server.port())) {
      slow.send(RawRespClient.encode("HGET", "delays:slow", "n"));
      CompletableFuture<String> slowReply = CompletableFuture.supplyAsync(slow::readReply);

      // One I/O thread: if the event loop waited for the slow read, this reply could not be written.
      assertThat(fast.call("HGET", "delays:A7", "n")).isEqualTo(bulk("7"));
      assertThat(slowReply).isNotDone();

      release.countDown();
      assertThat(slowReply.get(10, TimeUnit.SECONDS)).isEqualTo(bulk("-1"));
    }
  }

  @Test
  void answersInlineCommands() {
    try (RawRespClient client = new RawRespClient(server.port())) {
      client.send("PING\r\n\r\nHGET delays:A5 n\r\nECHO \"a b\"\r\n".getBytes(StandardCharsets.UTF_8));

      assertThat(client.readReply()).isEqualTo("+PONG\r\n");
      assertThat(client.readReply()).isEqualTo(bulk("5"));
      assertThat(client.readReply()).isEqualTo(bulk("a b"));
    }
  }

  @Test
  void repliesProtocolErrorThenClosesAndKeepsServing() {
    for (String garbage : List.of("*abc\r\n", "*1\r\nfoo\r\n", "*1\r\n$-1\r\n", "*2\r\n$3\r\nGET\r\n$x\r\n",
        "PING \"unbalanced\r\n")) {
      try (RawRespClient client = new RawRespClient(server.port())) {
        client.send(("PING\r\n" + garbage).getBytes(StandardCharsets.UTF_8));

        assertThat(client.readReply()).isEqualTo("+PONG\r\n");
        assertThat(client.readReply()).as(garbage).startsWith("-ERR Protocol error");
        assertThat(client.closedByServer()).as(garbage).isTrue();
      }
      try (RawRespClient next = new RawRespClient(server.port())) {
        assertThat(next.call("PING")).isEqualTo("+PONG\r\n");
      }
    }
  }

  @Test
  void closesAfterQuit() {
    try (RawRespClient client = new RawRespClient(server.port())) {
      client.send(concat(RawRespClient.encode("QUIT"), RawRespClient.encode("PING")));

      assertThat(client.readReply()).isEqualTo("+OK\r\n");
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void switchesToResp3PerConnection() {
    try (RawRespClient resp3 = new RawRespClient(server.port());
         RawRespClient resp2 = new RawRespClient(server.port())) {
      assertThat(resp3.call("HELLO", "3")).startsWith("%7\r\n");
      assertThat(resp3.call("HGETALL", "delays:A1")).isEqualTo("%1\r\n$1\r\nn\r\n$1\r\n1\r\n");
      assertThat(resp3.call("GET", "delays:none")).isEqualTo("_\r\n");
      assertThat(resp2.call("HGETALL", "delays:A1")).isEqualTo("*2\r\n$1\r\nn\r\n$1\r\n1\r\n");
      assertThat(resp2.call("GET", "delays:none")).isEqualTo("$-1\r\n");
    }
  }

  @Test
  void failsToStartOnATakenPortAndNamesIt() {
    int taken = server.port();
    RespServer second = new RespServer(reader, RespServerOptions.defaults().withPort(taken));

    assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("127.0.0.1:" + taken);
    second.close();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
  }

  @Test
  void rejectsBadOptionsWithTheBadValue() {
    assertThatThrownBy(() -> RespServerOptions.defaults().withPort(70000)).hasMessageContaining("70000");
    assertThatThrownBy(() -> RespServerOptions.defaults().withCommandThreads(0)).hasMessageContaining("was 0");
    assertThatThrownBy(() -> RespServerOptions.defaults().withDefaultTenant("Bad Tenant")).hasMessageContaining("Bad Tenant");
    assertThatThrownBy(() -> new RespServer(reader, RespServerOptions.defaults()).port())
        .hasMessageContaining("not started");
  }

  @Test
  void countsConnectedClientsInInfo() {
    try (RawRespClient a = new RawRespClient(server.port()); RawRespClient b = new RawRespClient(server.port())) {
      assertThat(a.call("PING")).isEqualTo("+PONG\r\n");
      assertThat(b.call("INFO", "clients")).contains("connected_clients:2");
      assertThat(b.call("INFO")).contains("tcp_port:" + server.port(), "db0:keys=101,");
    }
  }

  private static String bulk(String text) {
    return "$" + text.getBytes(StandardCharsets.UTF_8).length + "\r\n" + text + "\r\n";
  }

  private static byte[] concat(byte[] a, byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }
}
