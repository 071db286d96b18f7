package dev.streamfold.ledger;

/**
 * The state of a stream's offload to tiered storage (Pulsar's offload process status).
 *
 * @param state NOT_RUN, RUNNING, SUCCESS or ERROR
 * @param firstNotOffloaded message ID text of the first message still only local after a successful
 *     offload, "" otherwise
 * @param error the broker's error when {@code state} is ERROR, else ""
 */
public record OffloadStatus(String state, String firstNotOffloaded, String error) {
  /** True when the offload finished, successfully or not. */
  public boolean done() {
    return state.equals("SUCCESS") || state.equals("ERROR");
  }
}
