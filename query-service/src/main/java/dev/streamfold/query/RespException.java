package dev.streamfold.query;

import java.util.Locale;

/**
 * A command failed with a Redis error reply. The message is the reply line without the leading
 * {@code -}: an upper-case error code, a space, the text (e.g. {@code ERR syntax error},
 * {@code NOPROTO unsupported protocol version}).
 */
class RespException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Create an error whose reply is exactly {@code errorLine}.
   *
   * @param errorLine code and text, e.g. {@code ERR syntax error}
   */
  RespException(String errorLine) {
    super(errorLine);
  }

  /** Return {@code ERR <text>}. */
  static RespException err(String text) {
    return new RespException("ERR " + text);
  }

  /** Return the error Redis sends when an option is unknown or misplaced. */
  static RespException syntax() {
    return err("syntax error");
  }

  /** Return the error Redis sends when an argument must be a 64-bit signed integer. */
  static RespException notAnInteger() {
    return err("value is not an integer or out of range");
  }

  /**
   * Return the arity error of a command.
   *
   * @param fullName lower-case command name, {@code container|sub} for subcommands
   * @return the error
   */
  static RespException arity(String fullName) {
    return err("wrong number of arguments for '" + fullName + "' command");
  }

  /**
   * Return the unknown-subcommand error of a container command.
   *
   * @param container the command as the client sent it
   * @param subcommand the subcommand as the client sent it
   * @return the error, e.g. {@code ERR unknown subcommand 'foo'. Try CLIENT HELP.}
   */
  static RespException unknownSubcommand(String container, String subcommand) {
    return err("unknown subcommand '" + ErrorMapper.cString(subcommand, 128) + "'. Try "
        + container.toUpperCase(Locale.ROOT) + " HELP.");
  }
}
