package dev.streamfold.cli;

import dev.streamfold.api.v1.CreateTenantRequest;
import dev.streamfold.api.v1.CreateTenantResponse;
import dev.streamfold.api.v1.IssueTokenRequest;
import dev.streamfold.api.v1.IssueTokenResponse;
import dev.streamfold.api.v1.ListTenantsRequest;
import dev.streamfold.api.v1.RevokeTokenRequest;
import dev.streamfold.api.v1.Tenant;
import dev.streamfold.api.v1.TenantLimits;
import dev.streamfold.api.v1.TokenInfo;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold tenant create|list|token}: tenants (customer accounts) and their API tokens. */
@Command(name = "tenant", mixinStandardHelpOptions = true,
    description = "Create and list tenants and manage their API tokens (needs the admin token, the local stack's"
        + " by default; a tenant token may rotate or revoke its own tenant's tokens).",
    subcommands = {TenantCommand.Create.class, TenantCommand.ListTenants.class, TenantCommand.Token.class})
final class TenantCommand {
  private TenantCommand() {}

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Provision a tenant (Pulsar tenant with namespaces ledger and system, its Redis key space,"
          + " its limits) and print its first API token, once.")
  static final class Create implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Tenant name: lowercase letters, digits, '_', '-'.")
    String name;

    // Unset (null) means the server's default; the request carries 0 for that (proto3), so a given 0 is refused
    // here rather than silently becoming the default (--ingest-rate 0 gave 1,000,000 events/s).
    @Option(names = "--max-event-bytes", paramLabel = "N",
        description = "Largest event, bytes, at least 1 (default 1,048,576).")
    Long maxEventBytes;

    @Option(names = "--max-batch", paramLabel = "N",
        description = "Most events per append request, 1..10,000 (default 10,000).")
    Integer maxBatch;

    @Option(names = "--ingest-rate", paramLabel = "EVENTS_PER_S",
        description = "Ingest rate limit of the tenant, events/s, at least 1 (default 1,000,000).")
    Long ingestRate;

    private static long atLeastOne(String option, Number value) {
      if (value == null) {
        return 0;
      }
      if (value.longValue() < 1) {
        throw new CliException(option + " must be at least 1, got " + value + " (leave it out for the default)");
      }
      return value.longValue();
    }

    @Override
    public Integer call() {
      long maxEventBytes = atLeastOne("--max-event-bytes", this.maxEventBytes);
      int maxBatch = (int) atLeastOne("--max-batch", this.maxBatch);
      long ingestRate = atLeastOne("--ingest-rate", this.ingestRate);
      try (StreamfoldClient client = server.connect()) {
        CreateTenantResponse created = client.tenants().createTenant(CreateTenantRequest.newBuilder().setTenant(name)
            .setLimits(TenantLimits.newBuilder().setMaxEventBytes(maxEventBytes).setMaxEventsPerBatch(maxBatch)
                .setIngestEventsPerSecond(ingestRate)).build());
        System.out.println("Created tenant " + name + " (" + limits(created.getTenant().getLimits()) + ").");
        printToken(created.getToken(), created.getTokenInfo(), name);
      }
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List tenants with their limits and token ids.")
  static final class ListTenants implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        List<Tenant> tenants = client.tenants().listTenants(ListTenantsRequest.getDefaultInstance()).getTenantsList();
        if (tenants.isEmpty()) {
          System.out.println("No tenants (create one with: streamfold tenant create NAME).");
        }
        for (Tenant t : tenants) {
          System.out.println(t.getName() + "  created " + Instant.ofEpochMilli(t.getCreatedAtMs()) + "  "
              + limits(t.getLimits()) + "  tokens " + t.getTokensList().stream().map(TokenInfo::getId).toList());
        }
      }
      return 0;
    }
  }

  @Command(name = "token", mixinStandardHelpOptions = true, description = "Issue, rotate or revoke a tenant's tokens.",
      subcommands = {Token.Issue.class, Token.Rotate.class, Token.Revoke.class})
  static final class Token {
    @Command(name = "issue", mixinStandardHelpOptions = true, description = "Issue another token (others stay valid).")
    static final class Issue implements Callable<Integer> {
      @Mixin
      ServerOptions server = new ServerOptions();

      @Parameters(index = "0", paramLabel = "TENANT")
      String name;

      @Override
      public Integer call() {
        try (StreamfoldClient client = server.connect()) {
          IssueTokenResponse issued = client.tenants().issueToken(IssueTokenRequest.newBuilder().setTenant(name).build());
          printToken(issued.getToken(), issued.getTokenInfo(), name);
        }
        return 0;
      }
    }

    @Command(name = "rotate", mixinStandardHelpOptions = true,
        description = "Issue a new token and revoke all the tenant's other tokens (they fail from the next call).")
    static final class Rotate implements Callable<Integer> {
      @Mixin
      ServerOptions server = new ServerOptions();

      @Parameters(index = "0", paramLabel = "TENANT")
      String name;

      @Override
      public Integer call() {
        try (StreamfoldClient client = server.connect()) {
          IssueTokenResponse issued = client.tenants().issueToken(IssueTokenRequest.newBuilder().setTenant(name)
              .setRevokeOthers(true).build());
          System.out.println("Revoked tokens " + issued.getRevokedIdsList() + " of tenant " + name + ".");
          printToken(issued.getToken(), issued.getTokenInfo(), name);
        }
        return 0;
      }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
        description = "Revoke one token by id (see `tenant list`) or all of them.")
    static final class Revoke implements Callable<Integer> {
      @Mixin
      ServerOptions server = new ServerOptions();

      @Parameters(index = "0", paramLabel = "TENANT")
      String name;

      @ArgGroup(exclusive = true, multiplicity = "1")
      Which which;

      static final class Which {
        @Option(names = "--id", paramLabel = "TOKEN_ID", description = "The token's id.")
        String id;

        @Option(names = "--all", description = "Every token of the tenant.")
        boolean all;
      }

      @Override
      public Integer call() {
        try (StreamfoldClient client = server.connect()) {
          List<String> revoked = client.tenants().revokeToken(RevokeTokenRequest.newBuilder().setTenant(name)
              .setTokenId(which.id == null ? "" : which.id).setAll(which.all).build()).getRevokedIdsList();
          System.out.println("Revoked tokens " + revoked + " of tenant " + name + ".");
        }
        return 0;
      }
    }
  }

  static String limits(TenantLimits l) {
    return String.format("max event %,d bytes, max batch %,d events, ingest %,d events/s", l.getMaxEventBytes(),
        l.getMaxEventsPerBatch(), l.getIngestEventsPerSecond());
  }

  private static void printToken(String token, TokenInfo info, String tenant) {
    System.out.println("API token " + info.getId() + " of tenant " + tenant + " (shown once; only its SHA-256 hash is"
        + " stored):");
    System.out.println(token);
    System.out.println("Use it with: export STREAMFOLD_TOKEN=<token> (CLI, --tenant " + tenant + "),"
        + " redis-cli -a <token>, gRPC metadata 'authorization: Bearer <token>'.");
  }
}
