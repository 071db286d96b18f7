package dev.streamfold.ledger.pulsar.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * BookKeeper's admin REST API, for what Pulsar's admin API does not say: which ledgers the bookies still hold
 * (so whether an offloaded segment's local copy was deleted). Thread-safe.
 */
public final class BookieAdmin {
  /** How long one request may take. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final String adminUrl;

  /**
   * Create the client.
   *
   * @param adminUrl BookKeeper's admin REST URL (e.g. {@code http://127.0.0.1:8000}), or null when there is
   *     none to ask
   */
  public BookieAdmin(String adminUrl) {
    this.adminUrl = adminUrl;
  }

  /**
   * The ledger ids BookKeeper still holds ({@code GET /api/v1/ledger/list/}).
   *
   * @return the ids, or empty when no bookie admin URL is configured or it does not answer
   */
  public Optional<Set<Long>> ledgers() {
    if (adminUrl == null) {
      return Optional.empty();
    }
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(adminUrl + "/api/v1/ledger/list/")).timeout(REQUEST_TIMEOUT).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return Optional.empty();
      }
      Set<Long> ids = new HashSet<>();
      JsonNode root = new ObjectMapper().readTree(response.body());
      root.fieldNames().forEachRemaining(id -> ids.add(Long.parseLong(id)));
      return Optional.of(ids);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
