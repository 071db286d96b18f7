package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.StreamRef;

/** Where a tenant's clock lives: the topic {@code persistent://<tenant>/system/clock}, one tick per message. */
public final class ClockTopic {
  /**
   * The producer name of every clock writer. The system namespace deduplicates per producer name and each tick
   * is sent with its number as sequence ID, so a tick the client library resends is stored once, and a writer
   * that took over continues the sequence.
   */
  public static final String PRODUCER_NAME = "streamfold-clock";

  private ClockTopic() {}

  /**
   * The clock topic of a tenant.
   *
   * @throws IllegalArgumentException if the tenant name is malformed
   */
  public static String of(String tenant) {
    return "persistent://" + StreamRef.checkTenant(tenant) + "/" + StreamRef.SYSTEM_NAMESPACE + "/clock";
  }
}
