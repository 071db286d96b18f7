package dev.streamfold.ledger.tenant;

import dev.streamfold.core.ApiToken;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.SystemTable;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The registered tenants, their limits and their API tokens, stored durably in a cluster-level system table
 * of the ledger ({@link Ledger#clusterTable}, a compacted Pulsar topic): key {@code tenant:<name>} for a
 * tenant, {@code token:<sha256 hex>} for a token. Tokens are stored only as SHA-256 hashes; the token text
 * exists only in the {@link IssuedToken} returned once.
 *
 * <p>Lookups ({@link #authenticate}, {@link #limits}) read an in-memory copy, never the topic. Every change
 * made through this registry is written to the table first and then to the copy, so a revocation takes
 * effect on the next call to this server. Changes made by other servers sharing the cluster arrive with
 * {@link #refresh()}, which the server runs every {@link #DEFAULT_REFRESH_INTERVAL_MS} ms. Writes and
 * refreshes are serialized, so a refresh never brings back a token revoked meanwhile. Thread-safe.
 */
public final class TenantRegistry {
  /** Table name in the cluster namespace. */
  public static final String TABLE = "tenants";
  /** How often a server should re-read the table for other servers' changes, milliseconds. */
  public static final long DEFAULT_REFRESH_INTERVAL_MS = 10_000;
  /** Names refused for tenants: Pulsar's own tenants. */
  public static final Set<String> RESERVED_NAMES = Set.of("public", "pulsar", "sample");
  private static final String TENANT_KEY = "tenant:";
  private static final String TOKEN_KEY = "token:";

  private final SystemTable table;
  private final Consumer<String> provisioner;
  private final Clock clock;
  private final SecureRandom random;
  private volatile Snapshot snapshot = new Snapshot(Map.of(), Map.of());
  /** Bumped after every change of {@link #snapshot}; read by {@link #generation()}. */
  private final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();

  /** A registered tenant. {@code createdAtMs} is epoch milliseconds. */
  public record TenantRecord(String name, TenantLimits limits, long createdAtMs) {}

  /**
   * A valid token, without its text.
   *
   * @param tenant its tenant
   * @param id public id ({@link ApiToken#id})
   * @param hash SHA-256 hex of the token
   * @param createdAtMs when it was issued, epoch milliseconds
   */
  public record TokenRecord(String tenant, String id, String hash, long createdAtMs) {
    @Override
    public String toString() {
      return "token " + id + " of tenant '" + tenant + "'";
    }
  }

  /**
   * A token just issued: the only place its text exists.
   *
   * @param token the token text, to hand to the client once
   * @param record the stored record
   * @param revokedIds ids of tokens revoked at the same time (rotation); empty otherwise
   */
  public record IssuedToken(String token, TokenRecord record, List<String> revokedIds) {
    @Override
    public String toString() {
      return "IssuedToken[" + record + ", revoked " + revokedIds + "]"; // never the token text
    }
  }

  private record Snapshot(Map<String, TenantRecord> tenants, Map<String, TokenRecord> tokensByHash) {}

  /**
   * Create a registry over a table; call {@link #refresh()} to load it.
   *
   * @param table where tenants and token hashes are stored
   * @param provisioner provisions a tenant's storage (Pulsar tenant and namespaces); called by
   *     {@link #create} before the tenant is registered
   * @param clock time source of creation times
   * @param random source of token randomness
   */
  public TenantRegistry(SystemTable table, Consumer<String> provisioner, Clock clock, SecureRandom random) {
    this.table = Objects.requireNonNull(table, "table");
    this.provisioner = Objects.requireNonNull(provisioner, "provisioner");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Open the registry of a ledger's cluster and load it.
   *
   * @param ledger the ledger
   * @return the loaded registry
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public static TenantRegistry open(Ledger ledger) {
    TenantRegistry registry = new TenantRegistry(ledger.clusterTable(TABLE), ledger::ensureTenant,
        Clock.systemUTC(), new SecureRandom());
    registry.refresh();
    return registry;
  }

  /**
   * Re-read the table (other servers' changes).
   *
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails (the copy is kept)
   */
  public synchronized void refresh() {
    Map<String, TenantRecord> tenants = new TreeMap<>();
    Map<String, TokenRecord> tokens = new HashMap<>();
    for (Map.Entry<String, String> e : table.readAll().entrySet()) {
      if (e.getKey().startsWith(TENANT_KEY)) {
        String name = e.getKey().substring(TENANT_KEY.length());
        tenants.put(name, decodeTenant(name, e.getValue()));
      } else if (e.getKey().startsWith(TOKEN_KEY)) {
        String hash = e.getKey().substring(TOKEN_KEY.length());
        Map<String, String> fields = decode(e.getValue());
        tokens.put(hash, new TokenRecord(fields.get("tenant"), ApiToken.id(hash), hash,
            Long.parseLong(fields.getOrDefault("created_at_ms", "0"))));
      }
    }
    publish(new Snapshot(Map.copyOf(tenants), Map.copyOf(tokens)));
  }

  /**
   * Register a tenant: provision its storage, store it with its limits and issue its first token.
   *
   * @param tenant the name (see {@link StreamRef#checkTenant})
   * @param limits its limits
   * @return the first token
   * @throws IllegalArgumentException if the name is malformed or reserved
   * @throws TenantException.Exists if the tenant is registered
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized IssuedToken create(String tenant, TenantLimits limits) {
    StreamRef.checkTenant(tenant);
    Objects.requireNonNull(limits, "limits");
    if (RESERVED_NAMES.contains(tenant)) {
      throw new IllegalArgumentException("tenant name '" + tenant + "' is reserved by Pulsar; choose another");
    }
    if (snapshot.tenants().containsKey(tenant)) {
      throw new TenantException.Exists(tenant);
    }
    provisioner.accept(tenant);
    TenantRecord record = new TenantRecord(tenant, limits, clock.millis());
    table.put(TENANT_KEY + tenant, encodeTenant(record));
    Map<String, TenantRecord> tenants = new TreeMap<>(snapshot.tenants());
    tenants.put(tenant, record);
    publish(new Snapshot(Map.copyOf(tenants), snapshot.tokensByHash()));
    return issue(tenant, false);
  }

  /**
   * List the registered tenants.
   *
   * @return the tenants, by name
   */
  public List<TenantRecord> list() {
    return List.copyOf(new TreeMap<>(snapshot.tenants()).values());
  }

  /**
   * Find a registered tenant.
   *
   * @param tenant the name
   * @return the tenant, or empty when not registered
   */
  public Optional<TenantRecord> get(String tenant) {
    return Optional.ofNullable(snapshot.tenants().get(tenant));
  }

  /**
   * Return a tenant's limits.
   *
   * @param tenant the name
   * @return its stored limits, or {@link TenantLimits#defaults()} for a tenant that is not registered (the
   *     admin token acts for the server's default tenant and its configured ones without registration)
   */
  public TenantLimits limits(String tenant) {
    TenantRecord record = snapshot.tenants().get(tenant);
    return record == null ? TenantLimits.defaults() : record.limits();
  }

  /**
   * List a tenant's valid tokens.
   *
   * @param tenant the name
   * @return its tokens, oldest first (without their text)
   */
  public List<TokenRecord> tokens(String tenant) {
    List<TokenRecord> result = new ArrayList<>();
    for (TokenRecord t : snapshot.tokensByHash().values()) {
      if (t.tenant().equals(tenant)) {
        result.add(t);
      }
    }
    result.sort(Comparator.comparingLong(TokenRecord::createdAtMs).thenComparing(TokenRecord::id));
    return result;
  }

  /**
   * Issue a new token for a registered tenant.
   *
   * @param tenant the name
   * @param revokeOthers revoke the tenant's other tokens at the same time (rotation)
   * @return the new token, and the ids revoked
   * @throws TenantException.NotFound if the tenant is not registered
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized IssuedToken issueToken(String tenant, boolean revokeOthers) {
    requireTenant(tenant);
    return issue(tenant, revokeOthers);
  }

  private IssuedToken issue(String tenant, boolean revokeOthers) {
    List<TokenRecord> old = tokens(tenant);
    String token = ApiToken.generate(random);
    String hash = ApiToken.hash(token);
    TokenRecord record = new TokenRecord(tenant, ApiToken.id(hash), hash, clock.millis());
    table.put(TOKEN_KEY + hash, "tenant=" + tenant + "\ncreated_at_ms=" + record.createdAtMs());
    Map<String, TokenRecord> tokens = new HashMap<>(snapshot.tokensByHash());
    tokens.put(hash, record);
    publish(new Snapshot(snapshot.tenants(), Map.copyOf(tokens)));
    List<String> revoked = revokeOthers ? revokeTokens(old) : List.of();
    return new IssuedToken(token, record, revoked);
  }

  /**
   * Revoke one token of a tenant; it fails from the next call on.
   *
   * @param tenant the name
   * @param tokenId the token's public id
   * @return the revoked id
   * @throws TenantException.NotFound if the tenant is not registered or has no valid token with that id
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized String revoke(String tenant, String tokenId) {
    requireTenant(tenant);
    for (TokenRecord t : tokens(tenant)) {
      if (t.id().equals(tokenId)) {
        revokeTokens(List.of(t));
        return t.id();
      }
    }
    throw new TenantException.NotFound("tenant '" + tenant + "' has no valid token with id '" + tokenId
        + "' (list them with: streamfold tenant list)");
  }

  /**
   * Revoke every token of a tenant.
   *
   * @param tenant the name
   * @return the revoked ids (empty when it had none)
   * @throws TenantException.NotFound if the tenant is not registered
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized List<String> revokeAll(String tenant) {
    requireTenant(tenant);
    return revokeTokens(tokens(tenant));
  }

  private List<String> revokeTokens(List<TokenRecord> revoked) {
    List<String> ids = new ArrayList<>();
    Map<String, TokenRecord> tokens = new HashMap<>(snapshot.tokensByHash());
    for (TokenRecord t : revoked) {
      table.delete(TOKEN_KEY + t.hash());
      tokens.remove(t.hash());
      publish(new Snapshot(snapshot.tenants(), Map.copyOf(tokens)));
      ids.add(t.id());
    }
    return ids;
  }

  /**
   * Return a number that changes whenever what {@link #authenticate} answers may have changed: after each
   * token issued or revoked, tenant created, and {@link #refresh} (even one that found no change). A caller
   * that authenticated a token at generation {@code g} may keep its answer while the generation is still
   * {@code g}, and so skip hashing the token again.
   *
   * @return the generation, from 1 once the registry holds its first copy; never decreases
   */
  public long generation() {
    return generation.get();
  }

  private void publish(Snapshot next) {
    snapshot = next;
    generation.incrementAndGet(); // after the new copy: a reader that sees the new generation sees the copy
  }

  /**
   * Find the valid token with this text.
   *
   * @param token the token as a client sent it (any text)
   * @return its record, or empty when it is malformed, unknown or revoked
   */
  public Optional<TokenRecord> authenticate(String token) {
    if (!ApiToken.wellFormed(token)) {
      return Optional.empty();
    }
    return Optional.ofNullable(snapshot.tokensByHash().get(ApiToken.hash(token)));
  }

  private void requireTenant(String tenant) {
    if (!snapshot.tenants().containsKey(tenant)) {
      throw new TenantException.NotFound("tenant '" + tenant + "' is not registered (create it with: streamfold"
          + " tenant create " + tenant + ")");
    }
  }

  private static String encodeTenant(TenantRecord r) {
    return "created_at_ms=" + r.createdAtMs() + "\nmax_event_bytes=" + r.limits().maxEventBytes()
        + "\nmax_events_per_batch=" + r.limits().maxEventsPerBatch()
        + "\ningest_events_per_second=" + r.limits().ingestEventsPerSecond();
  }

  private static TenantRecord decodeTenant(String name, String value) {
    Map<String, String> f = decode(value);
    TenantLimits limits = TenantLimits.orDefaults(Long.parseLong(f.getOrDefault("max_event_bytes", "0")),
        Integer.parseInt(f.getOrDefault("max_events_per_batch", "0")),
        Long.parseLong(f.getOrDefault("ingest_events_per_second", "0")));
    return new TenantRecord(name, limits, Long.parseLong(f.getOrDefault("created_at_ms", "0")));
  }

  private static Map<String, String> decode(String value) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : value.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return fields;
  }
}
