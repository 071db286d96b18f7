package dev.streamfold.query;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The supported commands by name, and the lookup rules of Redis 7: case-insensitive names,
 * subcommands of container commands, arity checked before the command runs, writes refused as
 * read-only.
 */
final class CommandTable {
  private final Map<String, Command> commands = new LinkedHashMap<>();

  /**
   * Add commands.
   *
   * @param added the commands
   * @throws IllegalArgumentException if a name is already taken
   */
  void addAll(Collection<Command> added) {
    for (Command command : added) {
      if (commands.putIfAbsent(command.fullName(), command) != null) {
        throw new IllegalArgumentException("command '" + command.fullName() + "' registered twice");
      }
    }
  }

  /** All top-level commands, in registration order. */
  Collection<Command> all() {
    return Collections.unmodifiableCollection(commands.values());
  }

  /**
   * Find a command by name.
   *
   * @param lowerName lower-case name, {@code container|sub} for a subcommand
   * @return the command, or null when not supported
   */
  Command find(String lowerName) {
    int bar = lowerName.indexOf('|');
    if (bar < 0) {
      return commands.get(lowerName);
    }
    Command container = commands.get(lowerName.substring(0, bar));
    return container == null ? null : container.subcommands().get(lowerName.substring(bar + 1));
  }

  /**
   * Resolve the command a request runs, as Redis 7's {@code processCommand} does.
   *
   * @param request the request
   * @return the command (a subcommand for container commands) whose arity fits the request
   * @throws RespException READONLY if it is a write command, {@code ERR unknown command} (with the
   *     first arguments quoted like Redis 7) if it is not supported, {@code ERR unknown subcommand}
   *     for a container command with an unknown subcommand, {@code ERR wrong number of arguments}
   *     if the arity does not fit
   */
  Command resolve(Request request) {
    String name = request.name();
    Command command = commands.get(name);
    if (command == null) {
      if (WriteCommands.isWrite(name)) {
        throw new RespException(WriteCommands.READONLY);
      }
      throw unknownCommand(request);
    }
    if (!command.subcommands().isEmpty() && request.size() >= 2) {
      Command sub = command.subcommands().get(request.lower(1));
      if (sub == null) {
        throw RespException.unknownSubcommand(request.string(0), request.string(1));
      }
      command = sub;
    }
    if (!command.acceptsArgc(request.size())) {
      throw RespException.arity(command.fullName());
    }
    return command;
  }

  /**
   * Return Redis 7's unknown-command error: the name, then arguments quoted while the quoted text
   * is shorter than 128 characters.
   *
   * @param request the request
   * @return e.g. {@code ERR unknown command 'foo', with args beginning with: 'a' 'b' }
   */
  static RespException unknownCommand(Request request) {
    StringBuilder args = new StringBuilder();
    for (int i = 1; i < request.size() && args.length() < 128; i++) {
      String arg = ErrorMapper.cString(request.string(i), 128 - args.length());
      args.append('\'').append(arg).append("' ");
    }
    return RespException.err("unknown command '" + ErrorMapper.cString(request.string(0), 128)
        + "', with args beginning with: " + args);
  }
}
