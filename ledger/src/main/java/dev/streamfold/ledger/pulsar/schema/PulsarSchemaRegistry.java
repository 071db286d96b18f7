package dev.streamfold.ledger.pulsar.schema;

import dev.streamfold.core.ClientText;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.schema.EventValidator;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.schema.StreamSchemas;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * A stream's schema: its columns as topic properties and, as {@link AvroSchemas#record}, as the versions of
 * the topic's schema in Pulsar's registry. Changes are checked against the current columns
 * ({@link StreamSchemas}) and against every earlier version. Part of {@link PulsarLedger}. Thread-safe.
 */
public final class PulsarSchemaRegistry {
  private final PulsarAdmin admin;
  private final StreamTopics topics;

  /**
   * Create the registry.
   *
   * @param admin the admin client (not closed by this class)
   * @param topics the stream topics, whose properties hold the columns
   */
  public PulsarSchemaRegistry(PulsarAdmin admin, StreamTopics topics) {
    this.admin = admin;
    this.topics = topics;
  }

  /**
   * Register the columns as the next version of the topic's schema in Pulsar's registry: type JSON (the
   * payloads are JSON objects), the definition {@link AvroSchemas#record}. Our appender is a schemaless (BYTES)
   * producer, which the broker accepts on a topic with a schema while {@code schemaValidationEnforced} is off
   * (Pulsar's default, verified by {@code StreamSchemaIT}); events are validated by {@link EventValidator}
   * instead.
   *
   * @throws LedgerException.IncompatibleSchema if Pulsar's compatibility check refuses it
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public void register(StreamRef stream, List<StreamColumn> columns) {
    SchemaInfo info = SchemaInfo.builder().name(stream.stream()).type(SchemaType.JSON)
        .schema(AvroSchemas.record(stream, columns).getBytes(StandardCharsets.UTF_8)).properties(Map.of()).build();
    try {
      admin.schemas().createSchema(stream.topic(), info);
    } catch (PulsarAdminException.ConflictException | PulsarAdminException.ServerSideErrorException refused) {
      throw new LedgerException.IncompatibleSchema(stream, "Pulsar's schema registry refused it ("
          + registryRefusal(refused) + ")");
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot register the schema of stream " + stream, e);
    }
  }

  /** The first line of the broker's "Message: ..." in a refusal (its full text carries a stack trace). */
  public static String registryRefusal(Exception refused) {
    String text = String.valueOf(refused.getMessage());
    for (String line : text.split("\n")) {
      if (line.startsWith("Message: ")) {
        return line.substring("Message: ".length()).trim();
      }
    }
    return ClientText.shorten(text.trim());
  }

  /**
   * Change a stream's columns ({@link Ledger#updateSchema}): check them, register them (unless empty) and
   * store them as the topic's properties. The stream's appender, which validates against the old columns,
   * is the caller's to replace.
   *
   * @return true when the columns changed, false when they are the stream's columns already
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.IncompatibleSchema naming the first incompatible column and why
   * @throws IllegalArgumentException if the columns are malformed or repeat a name
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public boolean update(StreamRef stream, List<StreamColumn> columns) {
    StreamColumn.checkDistinct(columns);
    try {
      Map<String, String> props = topics.properties(stream);
      List<StreamColumn> old = StreamTopics.columns(props);
      String problem = StreamSchemas.incompatibility(old, columns);
      if (problem == null) {
        problem = earlierDefinitionProblem(stream, old, columns);
      }
      if (problem != null) {
        throw new LedgerException.IncompatibleSchema(stream, problem);
      }
      if (old.equals(columns)) {
        return false;
      }
      if (!columns.isEmpty()) {
        register(stream, columns);
      }
      Map<String, String> updated = new HashMap<>(props);
      updated.put(StreamTopics.COLUMNS_PROPERTY, StreamColumn.encode(columns));
      updated.put(StreamTopics.SCHEMA_PROPERTY, StreamColumn.encodeSchema(columns));
      admin.topics().updateProperties(stream.topic(), updated);
      return true;
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot update the schema of stream " + stream, e);
    }
  }

  /**
   * Check columns that come back after being removed against every earlier version of the stream's schema in
   * Pulsar's registry ({@link AvroSchemas#earlierDefinitionProblem}). Comparing with the current schema alone
   * let a type or DEFAULT change through in two updates (remove, then add back), and replays then disagreed
   * with the views built before.
   *
   * @return what is incompatible, or null
   * @throws PulsarAdminException if the registry cannot be read
   */
  private String earlierDefinitionProblem(StreamRef stream, List<StreamColumn> current, List<StreamColumn> next)
      throws PulsarAdminException {
    List<StreamColumn> returning = AvroSchemas.returning(current, next);
    if (returning.isEmpty()) {
      return null;
    }
    List<SchemaInfo> versions;
    try {
      versions = admin.schemas().getAllSchemas(stream.topic());
    } catch (PulsarAdminException.NotFoundException none) {
      return null; // no schema registered yet (a stream created without columns)
    }
    return AvroSchemas.earlierDefinitionProblem(returning, versions.stream().map(SchemaInfo::getSchema).toList());
  }
}
