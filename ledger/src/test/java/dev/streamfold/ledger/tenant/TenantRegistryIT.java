package dev.streamfold.ledger.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.ApiToken;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Testkit;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry on a real Pulsar cluster: tenants and token hashes survive a new connection (a server
 * restart), revocations reach another server on refresh, the token text is never stored, the tenant is
 * provisioned in Pulsar, and the cluster table's tenant is not listed as a tenant.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TenantRegistryIT {
  private static PulsarLedger connect() {
    return PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
  }

  @Test
  void tenantsAndTokenHashesAreDurableAndRevocationsPropagate() {
    String tenant = Testkit.uniqueName("reg");
    String token;
    String second;
    try (PulsarLedger first = connect()) {
      TenantRegistry registry = TenantRegistry.open(first);
      token = registry.create(tenant, new TenantLimits(2048, 50, 300)).token();
      second = registry.issueToken(tenant, false).token();
      assertThat(first.tenants()).contains(tenant).doesNotContain(PulsarLedger.CLUSTER_TENANT);
      assertThat(first.listStreams(tenant)).isEmpty(); // its ledger namespace exists
      Map<String, String> stored = first.clusterTable(TenantRegistry.TABLE).readAll();
      assertThat(stored.toString()).doesNotContain(token).doesNotContain(second)
          .contains(ApiToken.hash(token)).contains("tenant:" + tenant);
    }
    try (PulsarLedger restarted = connect(); PulsarLedger other = connect()) {
      TenantRegistry a = TenantRegistry.open(restarted);
      TenantRegistry b = TenantRegistry.open(other);
      assertThat(a.authenticate(token)).get().extracting(TenantRegistry.TokenRecord::tenant).isEqualTo(tenant);
      assertThat(a.limits(tenant)).isEqualTo(new TenantLimits(2048, 50, 300));
      assertThat(b.authenticate(second)).isPresent();

      a.revoke(tenant, ApiToken.id(ApiToken.hash(second)));
      assertThat(a.authenticate(second)).isEmpty();
      b.refresh();
      assertThat(b.authenticate(second)).isEmpty();
      assertThat(b.authenticate(token)).isPresent();
      assertThat(StreamRef.checkTenant(tenant)).isEqualTo(tenant);
    }
    try (PulsarLedger again = connect()) {
      TenantRegistry registry = TenantRegistry.open(again);
      assertThat(registry.authenticate(second)).as("a revocation is durable").isEmpty();
      assertThat(registry.authenticate(token)).isPresent();
    }
  }
}
