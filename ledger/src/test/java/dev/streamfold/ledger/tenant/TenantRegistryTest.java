package dev.streamfold.ledger.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.ApiToken;
import dev.streamfold.ledger.SystemTable;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The registry over an in-memory table: hashes only, issue, rotate, revoke, refresh, names, limits. */
class TenantRegistryTest {
  /** A {@link SystemTable} in memory, like the compacted topic (latest value per key, deletes remove). */
  static final class MemoryTable implements SystemTable {
    final Map<String, String> rows = new TreeMap<>();

    @Override
    public synchronized void put(String key, String value) {
      rows.put(key, value);
    }

    @Override
    public synchronized void delete(String key) {
      rows.remove(key);
    }

    @Override
    public synchronized Map<String, String> readAll() {
      return new TreeMap<>(rows);
    }
  }

  private final MemoryTable table = new MemoryTable();
  private final List<String> provisioned = new ArrayList<>();
  private final TenantRegistry registry = new TenantRegistry(table, provisioned::add,
      Clock.fixed(Instant.ofEpochMilli(1_700_000_000_000L), ZoneOffset.UTC), new SecureRandom());

  @Test
  void createProvisionsStoresOnlyTheHashAndAuthenticatesTheToken() {
    TenantRegistry.IssuedToken issued = registry.create("acme", TenantLimits.defaults());

    assertThat(provisioned).containsExactly("acme");
    assertThat(issued.token()).startsWith("sf_").hasSize(46);
    assertThat(ApiToken.wellFormed(issued.token())).isTrue();
    assertThat(table.rows.toString()).doesNotContain(issued.token()).contains(ApiToken.hash(issued.token()));
    assertThat(issued.toString()).doesNotContain(issued.token());
    assertThat(registry.authenticate(issued.token())).get().extracting(TenantRegistry.TokenRecord::tenant)
        .isEqualTo("acme");
    assertThat(registry.authenticate(issued.token() + "x")).isEmpty();
    assertThat(registry.authenticate("")).isEmpty();
    assertThat(registry.get("acme")).get().extracting(TenantRegistry.TenantRecord::createdAtMs)
        .isEqualTo(1_700_000_000_000L);
  }

  @Test
  void tokensAreRandomAndDistinct() {
    String a = registry.create("a", TenantLimits.defaults()).token();
    String b = registry.create("b", TenantLimits.defaults()).token();
    String a2 = registry.issueToken("a", false).token();
    assertThat(List.of(a, b, a2)).doesNotHaveDuplicates();
    assertThat(registry.authenticate(b).orElseThrow().tenant()).isEqualTo("b");
    assertThat(registry.tokens("a")).hasSize(2);
  }

  @Test
  void revokeTakesEffectAtOnceAndSurvivesARefresh() {
    String first = registry.create("acme", TenantLimits.defaults()).token();
    String second = registry.issueToken("acme", false).token();
    String firstId = registry.authenticate(first).orElseThrow().id();

    assertThat(registry.revoke("acme", firstId)).isEqualTo(firstId);
    assertThat(registry.authenticate(first)).isEmpty();
    assertThat(registry.authenticate(second)).isPresent();
    registry.refresh();
    assertThat(registry.authenticate(first)).isEmpty();
    assertThat(registry.authenticate(second)).isPresent();

    assertThat(registry.revokeAll("acme")).hasSize(1);
    assertThat(registry.authenticate(second)).isEmpty();
    assertThatThrownBy(() -> registry.revoke("acme", firstId)).isInstanceOf(TenantException.NotFound.class)
        .hasMessageContaining(firstId);
  }

  @Test
  void rotateIssuesANewTokenAndRevokesTheOthers() {
    String old = registry.create("acme", TenantLimits.defaults()).token();
    TenantRegistry.IssuedToken rotated = registry.issueToken("acme", true);

    assertThat(rotated.revokedIds()).containsExactly(ApiToken.id(ApiToken.hash(old)));
    assertThat(registry.authenticate(old)).isEmpty();
    assertThat(registry.authenticate(rotated.token())).isPresent();
  }

  @Test
  void anotherRegistryOnTheSameTableSeesChangesAfterRefresh() {
    String token = registry.create("acme", new TenantLimits(100, 5, 50)).token();
    TenantRegistry other = new TenantRegistry(table, t -> { }, Clock.systemUTC(), new SecureRandom());
    other.refresh();
    assertThat(other.authenticate(token)).isPresent();
    assertThat(other.limits("acme")).isEqualTo(new TenantLimits(100, 5, 50));

    registry.revokeAll("acme");
    assertThat(other.authenticate(token)).as("until its refresh").isPresent();
    other.refresh();
    assertThat(other.authenticate(token)).isEmpty();
  }

  @Test
  void refusesDuplicatesBadAndReservedNamesAndUnknownTenants() {
    registry.create("acme", TenantLimits.defaults());
    assertThatThrownBy(() -> registry.create("acme", TenantLimits.defaults()))
        .isInstanceOf(TenantException.Exists.class).hasMessageContaining("acme");
    assertThatThrownBy(() -> registry.create("Bad Name", TenantLimits.defaults()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Bad Name");
    assertThatThrownBy(() -> registry.create("pulsar", TenantLimits.defaults()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
    assertThatThrownBy(() -> registry.issueToken("nobody", false)).isInstanceOf(TenantException.NotFound.class)
        .hasMessageContaining("nobody");
    assertThat(provisioned).containsExactly("acme");
  }

  @Test
  void limitsAreStoredAndDefaultForUnregisteredTenants() {
    registry.create("small", new TenantLimits(1000, 10, 20));
    assertThat(registry.limits("small")).isEqualTo(new TenantLimits(1000, 10, 20));
    assertThat(registry.limits("legacy")).isEqualTo(TenantLimits.defaults());
    assertThat(TenantLimits.orDefaults(0, 0, 0)).isEqualTo(TenantLimits.defaults());
    assertThatThrownBy(() -> new TenantLimits(0, 1, 1)).hasMessageContaining("max event bytes");
    assertThatThrownBy(() -> new TenantLimits(1, 10_001, 1)).hasMessageContaining("10001");
    assertThatThrownBy(() -> new TenantLimits(1, 1, -5)).hasMessageContaining("-5");
  }
}
