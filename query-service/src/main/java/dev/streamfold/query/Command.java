package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * One supported command, with what COMMAND INFO reports about it.
 *
 * @param fullName lower-case name; {@code container|sub} for a subcommand
 * @param arity Redis arity, the name included: {@code n} exactly n elements, {@code -n} at least n
 * @param flags Redis command flags, e.g. {@code readonly}, {@code fast}
 * @param firstKey position of the first key argument, 0 when none
 * @param lastKey position of the last key argument, -1 for "the last argument", 0 when none
 * @param keyStep distance between key arguments, 0 when none
 * @param action what the command does; null for a container that needs a subcommand
 * @param subcommands subcommands by lower-case name, empty when none
 * @param async the same body without blocking, for commands that only read views (run on the event loop);
 *     null for commands that must run on a command thread (they block, or change the connection's state)
 */
record Command(String fullName, int arity, List<String> flags, int firstKey, int lastKey, int keyStep,
    Action action, Map<String, Command> subcommands, AsyncAction async) {

  /** The body of a command. */
  @FunctionalInterface
  interface Action {
    /**
     * Run the command.
     *
     * @param session the connection
     * @param request the command with its arguments (arity already checked)
     * @return the reply
     * @throws RespException if the command fails with a Redis error
     * @throws RuntimeException if a view read fails; it is mapped to {@code -ERR <message>}
     */
    RedisMessage run(Session session, Request request);
  }

  /** The body of a command that reads views without blocking. */
  @FunctionalInterface
  interface AsyncAction {
    /**
     * Start the command. Everything it needs from the session is read before this returns (the reply may be
     * built later, on another thread, while the session has moved on).
     *
     * @param session the connection
     * @param request the command with its arguments (arity already checked)
     * @return the reply; completed exceptionally with a {@link RespException} for a Redis error, or another
     *     exception if a view read fails (mapped to {@code -ERR <message>})
     * @throws RespException if the command fails at once with a Redis error
     */
    CompletionStage<RedisMessage> run(Session session, Request request);
  }

  Command {
    flags = List.copyOf(flags);
    subcommands = new LinkedHashMap<>(subcommands);
  }

  /** Return a command without keys. */
  static Command of(String name, int arity, List<String> flags, Action action) {
    return new Command(name, arity, flags, 0, 0, 0, action, Map.of(), null);
  }

  /** Return a command whose keys are the arguments from {@code firstKey} to {@code lastKey}. */
  static Command withKeys(String name, int arity, List<String> flags, int firstKey, int lastKey, Action action) {
    return new Command(name, arity, flags, firstKey, lastKey, 1, action, Map.of(), null);
  }

  /**
   * Return a non-blocking command whose keys are the arguments from {@code firstKey} to {@code lastKey}; its
   * blocking {@link #action()} starts the asynchronous one, runs {@code flush} (reads may be held back until
   * then) and waits.
   */
  static Command asyncWithKeys(String name, int arity, List<String> flags, int firstKey, int lastKey,
      Runnable flush, AsyncAction async) {
    Action blocking = (session, request) -> {
      try {
        CompletionStage<RedisMessage> started = async.run(session, request);
        flush.run();
        return started.toCompletableFuture().join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException cause ? cause : e;
      }
    };
    return new Command(name, arity, flags, firstKey, lastKey, 1, blocking, Map.of(), async);
  }

  /**
   * Return a container command such as CLIENT.
   *
   * @param name lower-case name
   * @param arity arity of the container itself
   * @param action what the container does without a subcommand, or null when it needs one
   * @param subcommands subcommands; their names must start with {@code name|}
   * @return the command
   */
  static Command container(String name, int arity, Action action, List<Command> subcommands) {
    Map<String, Command> byName = new LinkedHashMap<>();
    for (Command sub : subcommands) {
      byName.put(sub.fullName().substring(name.length() + 1), sub);
    }
    return new Command(name, arity, List.of(), 0, 0, 0, action, byName, null);
  }

  /** The name the client uses: the part after '|' for a subcommand. */
  String shortName() {
    int bar = fullName.indexOf('|');
    return bar < 0 ? fullName : fullName.substring(bar + 1);
  }

  /**
   * Tell whether a request has a valid number of elements for this command.
   *
   * @param argc elements of the request, the name included
   * @return true when the arity allows it
   */
  boolean acceptsArgc(int argc) {
    return arity >= 0 ? argc == arity : argc >= -arity;
  }
}
