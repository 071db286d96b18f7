package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.testkit.resp.RawRespClient;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewSchema;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** AUTH over a socket, with rows of two tenants in memory: NOAUTH, WRONGPASS, tenant selection, RESET. */
class RespAuthTest {
  private static final String TOKEN_A = "sf_token-of-a";
  private static final String TOKEN_B = "sf_token-of-b";
  private final InMemoryViewReader reader = new InMemoryViewReader();
  private final java.util.Set<String> revoked = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private RespServer server;

  @BeforeEach
  void setUp() {
    for (String tenant : List.of("a", "b")) {
      ViewName view = new ViewName(tenant, "v_" + tenant);
      reader.define(view, new ViewSchema(Map.of("k", "STRING", "n", "BIGINT"), List.of("k")));
      reader.put(view, "x", Map.of("n", tenant.equals("a") ? "1" : "2"));
    }
    RespAuthenticator auth = (user, token) -> {
      String tenant = revoked.contains(token) ? null : token.equals(TOKEN_A) ? "a" : token.equals(TOKEN_B) ? "b" : null;
      return tenant != null && (user.equals("default") || user.equals(tenant)) ? Optional.of(tenant) : Optional.empty();
    };
    server = new RespServer(reader, RespServerOptions.defaults().withWorkerThreads(1).withCommandThreads(2),
        ViewSources.UNKNOWN, Clock.systemUTC(), auth).start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void beforeAuthOnlyPingHelloAuthAndQuitRun() {
    try (RawRespClient c = new RawRespClient(server.port())) {
      assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
      // like Redis with requirepass: HELLO answers the server map only to an authenticated connection
      assertThat(c.call("HELLO", "3")).startsWith("-NOAUTH HELLO must be called with the client already authenticated");
      assertThat(c.call("HELLO")).startsWith("-NOAUTH HELLO must be called");
      assertThat(c.call("PING")).as("still RESP2").isEqualTo("+PONG\r\n");
      for (String[] command : List.of(new String[] {"GET", "v_a:x"}, new String[] {"HGETALL", "v_a:x"},
          new String[] {"SCAN", "0"}, new String[] {"DBSIZE"}, new String[] {"VIEW.LIST"}, new String[] {"ECHO", "x"},
          new String[] {"CLIENT", "INFO"}, new String[] {"INFO"})) {
        assertThat(c.call(command)).as(String.join(" ", command)).isEqualTo("-NOAUTH Authentication required.\r\n");
      }
      assertThat(c.call("QUIT")).isEqualTo("+OK\r\n");
    }
  }

  @Test
  void wrongTokenIsWrongpassAndKeepsTheSession() {
    try (RawRespClient c = new RawRespClient(server.port())) {
      assertThat(c.call("AUTH", "sf_nope")).isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
      assertThat(c.call("GET", "v_a:x")).startsWith("-NOAUTH");
      assertThat(c.call("AUTH", TOKEN_A)).isEqualTo("+OK\r\n");
      assertThat(c.call("AUTH", "b", TOKEN_A)).startsWith("-WRONGPASS");
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("$1\r\n1\r\n");
    }
  }

  @Test
  void tokenSelectsTheTenantsKeySpace() {
    try (RawRespClient c = new RawRespClient(server.port())) {
      assertThat(c.call("AUTH", TOKEN_A)).isEqualTo("+OK\r\n");
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("$1\r\n1\r\n");
      assertThat(c.call("HGET", "v_b:x", "n")).isEqualTo("$-1\r\n");
      assertThat(c.call("EXISTS", "v_b:x")).isEqualTo(":0\r\n");
      assertThat(c.call("SCAN", "0", "COUNT", "1000")).contains("v_a:x").doesNotContain("v_b");
      assertThat(c.call("AUTH", "default", TOKEN_B)).isEqualTo("+OK\r\n");
      assertThat(c.call("HGET", "v_b:x", "n")).isEqualTo("$1\r\n2\r\n");
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("$-1\r\n");
    }
  }

  @Test
  void helloAuthSelectsTheTenantAndResetForgetsIt() {
    try (RawRespClient c = new RawRespClient(server.port())) {
      assertThat(c.call("HELLO", "3", "AUTH", "b", "sf_bad")).startsWith("-WRONGPASS");
      assertThat(c.call("HELLO", "3", "AUTH", "b", TOKEN_B)).startsWith("%7\r\n");
      assertThat(c.call("HGET", "v_b:x", "n")).isEqualTo("$1\r\n2\r\n");
      assertThat(c.call("HELLO", "3")).as("authenticated: the map").startsWith("%7\r\n");
      assertThat(c.call("CLIENT", "INFO")).contains(" user=b ");
      assertThat(c.call("RESET")).isEqualTo("+RESET\r\n");
      assertThat(c.call("HGET", "v_b:x", "n")).startsWith("-NOAUTH");
    }
  }

  @Test
  void aRevokedTokenStopsWorkingOnAnOpenConnection() {
    try (RawRespClient c = new RawRespClient(server.port())) {
      assertThat(c.call("AUTH", TOKEN_A)).isEqualTo("+OK\r\n");
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("$1\r\n1\r\n");
      revoked.add(TOKEN_A);
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("-NOAUTH Authentication required.\r\n");
      assertThat(c.call("AUTH", TOKEN_A)).startsWith("-WRONGPASS");
    }
  }

  @Test
  void aVersionedAuthenticatorIsAskedAgainOnlyWhenItsGenerationChanges() {
    java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong(7);
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    RespAuthenticator versioned = new RespAuthenticator() {
      @Override
      public Optional<String> tenant(String user, String token) {
        asked.incrementAndGet();
        return token.equals(TOKEN_A) && !revoked.contains(token) ? Optional.of("a") : Optional.empty();
      }

      @Override
      public long generation() {
        return generation.get();
      }
    };
    try (RespServer versionedServer = new RespServer(reader, RespServerOptions.defaults().withWorkerThreads(1)
        .withCommandThreads(2), ViewSources.UNKNOWN, Clock.systemUTC(), versioned).start();
        RawRespClient c = new RawRespClient(versionedServer.port())) {
      assertThat(c.call("AUTH", TOKEN_A)).isEqualTo("+OK\r\n");
      for (int i = 0; i < 5; i++) {
        assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("$1\r\n1\r\n");
      }
      assertThat(asked.get()).as("AUTH, then one check at the first command").isEqualTo(2);

      revoked.add(TOKEN_A);
      assertThat(c.call("HGET", "v_a:x", "n")).as("same generation: the verified answer holds").isEqualTo("$1\r\n1\r\n");
      generation.incrementAndGet();
      assertThat(c.call("HGET", "v_a:x", "n")).isEqualTo("-NOAUTH Authentication required.\r\n");
    }
  }
}
