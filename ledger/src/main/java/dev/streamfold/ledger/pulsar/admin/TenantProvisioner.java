package dev.streamfold.ledger.pulsar.admin;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;

/**
 * The Pulsar tenants of the ledger: provisions a tenant (its Pulsar tenant and the namespaces {@code ledger}
 * and {@code system}, with infinite retention and broker deduplication), once per tenant and instance, and
 * lists the provisioned ones. Part of {@link dev.streamfold.ledger.pulsar.PulsarLedger}. Thread-safe.
 */
public final class TenantProvisioner {
  /** Pulsar tenant of the cluster-level system tables: not a valid Streamfold tenant name (it starts with '_'). */
  public static final String CLUSTER_TENANT = "_streamfold";

  private final PulsarAdmin admin;
  private final Consumer<String> onProvisioned;
  private final Set<String> provisioned = ConcurrentHashMap.newKeySet();

  /**
   * Create the provisioner.
   *
   * @param admin the admin client it provisions with (not closed by this class)
   * @param onProvisioned told each customer tenant's name once, when this instance first provisioned it (e.g. to
   *     run its clock writer)
   */
  public TenantProvisioner(PulsarAdmin admin, Consumer<String> onProvisioned) {
    this.admin = admin;
    this.onProvisioned = onProvisioned;
  }

  /**
   * Provision a tenant, checking its name first ({@link dev.streamfold.ledger.Ledger#ensureTenant}).
   *
   * @param tenant tenant name
   * @throws IllegalArgumentException if the name is malformed
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public void ensureTenant(String tenant) {
    StreamRef.checkTenant(tenant);
    if (provision(tenant)) {
      onProvisioned.accept(tenant);
    }
  }

  /**
   * Provision the Pulsar tenant of the cluster-level system tables, {@value #CLUSTER_TENANT}
   * (a name {@link #ensureTenant} refuses).
   *
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public void ensureClusterTenant() {
    provision(CLUSTER_TENANT);
  }

  /** Provision a tenant; true when this call did it (false when done before on this instance). */
  private boolean provision(String tenant) {
    if (provisioned.contains(tenant)) {
      return false;
    }
    try {
      if (!admin.tenants().getTenants().contains(tenant)) {
        List<String> clusters = admin.clusters().getClusters();
        try {
          admin.tenants().createTenant(tenant, TenantInfo.builder().allowedClusters(Set.copyOf(clusters)).build());
        } catch (PulsarAdminException.ConflictException raced) {
          // created concurrently
        }
      }
      List<String> namespaces = admin.namespaces().getNamespaces(tenant);
      for (String ns : List.of(StreamRef.LEDGER_NAMESPACE, StreamRef.SYSTEM_NAMESPACE)) {
        String full = tenant + "/" + ns;
        if (!namespaces.contains(full)) {
          try {
            admin.namespaces().createNamespace(full);
          } catch (PulsarAdminException.ConflictException raced) {
            // created concurrently
          }
        }
        // Infinite retention: the ledger is never trimmed (docs/design.md: the ledger is the truth).
        admin.namespaces().setRetention(full, new RetentionPolicies(-1, -1));
        admin.namespaces().setDeduplicationStatus(full, true);
      }
      admin.namespaces().setCompactionThreshold(tenant + "/" + StreamRef.SYSTEM_NAMESPACE, 1024 * 1024);
      return provisioned.add(tenant);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot provision tenant '" + tenant + "'", e);
    }
  }

  /**
   * List the tenants that have a {@code system} namespace ({@link dev.streamfold.ledger.Ledger#tenants}).
   *
   * @return tenant names, sorted
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public List<String> tenants() {
    try {
      List<String> result = new ArrayList<>();
      for (String tenant : admin.tenants().getTenants()) {
        if (tenant.equals("public") || tenant.equals("pulsar") || tenant.equals("sample")
            || tenant.equals(CLUSTER_TENANT) || !tenant.matches("[a-z0-9][a-z0-9_-]{0,63}")) {
          continue;
        }
        if (admin.namespaces().getNamespaces(tenant).contains(tenant + "/" + StreamRef.SYSTEM_NAMESPACE)) {
          result.add(tenant);
        }
      }
      result.sort(null);
      return result;
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot list tenants", e);
    }
  }
}
