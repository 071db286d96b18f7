package dev.streamfold.query;

/**
 * Told the outcome of each command a {@link RespServer} runs, for metrics. Called on the command threads,
 * once per command: keep it cheap and non-blocking, and never throw.
 */
@FunctionalInterface
public interface RespListener {
  /** A listener that does nothing. */
  RespListener NONE = (command, latencyNanos, errorKind) -> {};

  /** The command name reported for a command the server does not serve. */
  String OTHER = "OTHER";

  /**
   * Record one command.
   *
   * @param command the command's name in upper case (e.g. {@code HGETALL}, {@code VIEW.INFO}; a container
   *     command's own name, without its subcommand), or {@link #OTHER} for a name the server does not serve
   *     (so the set of names is bounded)
   * @param latencyNanos from dispatch to the reply being ready, nanoseconds
   * @param errorKind null when the reply is not an error; else the error's code, the first word of the error
   *     line ({@code ERR}, {@code NOAUTH}, {@code WRONGPASS}, {@code READONLY}, ...), upper case
   */
  void commandDone(String command, long latencyNanos, String errorKind);
}
