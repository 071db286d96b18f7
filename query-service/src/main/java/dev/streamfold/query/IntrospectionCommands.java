package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * COMMAND (what redis-cli and client libraries ask at start-up) and INFO (server, clients and
 * keyspace sections).
 */
final class IntrospectionCommands {
  private static final Set<String> INFO_SECTIONS = Set.of("server", "clients", "keyspace");

  private final CommandTable table;
  private final ServerState server;
  private final ToLongFunction<Session> keyCount;

  /**
   * Create the commands.
   *
   * @param table the commands that COMMAND describes (this one's included, once added)
   * @param server server identity and counters
   * @param keyCount number of rows a connection can read (the keyspace section of INFO)
   */
  IntrospectionCommands(CommandTable table, ServerState server, ToLongFunction<Session> keyCount) {
    this.table = table;
    this.server = server;
    this.keyCount = keyCount;
  }

  /** Return the commands. */
  List<Command> commands() {
    return List.of(
        Command.container("command", -1, (s, r) -> describeAll(), List.of(
            Command.of("command|count", 2, List.of(), (s, r) -> Replies.integer(table.all().size())),
            Command.of("command|docs", -2, List.of(), (s, r) -> s.replies().map(List.of())),
            Command.of("command|info", -2, List.of(), this::commandInfo),
            Command.of("command|list", -2, List.of(), (s, r) -> Replies.bulkArray(
                table.all().stream().map(Command::fullName).toList())),
            Command.of("command|help", 2, List.of(), (s, r) -> ConnectionCommands.help("COMMAND",
                "(no subcommand)", "    Return details about all Redis commands.",
                "COUNT", "    Return the total number of commands in this Redis server.",
                "LIST", "    Return a list of all commands in this Redis server.",
                "INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
                "DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.")))),
        Command.of("info", -1, List.of(), this::info));
  }

  private RedisMessage describeAll() {
    List<RedisMessage> out = new ArrayList<>();
    table.all().forEach(c -> out.add(describe(c)));
    return Replies.array(out);
  }

  private RedisMessage commandInfo(Session session, Request request) {
    if (request.size() == 2) {
      return describeAll();
    }
    List<RedisMessage> out = new ArrayList<>();
    for (int i = 2; i < request.size(); i++) {
      Command command = table.find(request.lower(i));
      out.add(command == null ? session.replies().nil() : describe(command));
    }
    return Replies.array(out);
  }

  /**
   * Describe a command the way Redis 7's COMMAND INFO does: name, arity, flags, first key, last
   * key, key step, ACL categories, tips, key specs, subcommands (the last four empty or minimal).
   */
  private static RedisMessage describe(Command command) {
    List<RedisMessage> flags = new ArrayList<>();
    command.flags().forEach(f -> flags.add(Replies.simple(f)));
    List<RedisMessage> subcommands = new ArrayList<>();
    command.subcommands().values().forEach(sub -> subcommands.add(describe(sub)));
    return Replies.array(List.of(
        Replies.bulk(command.fullName()),
        Replies.integer(command.arity()),
        Replies.array(flags),
        Replies.integer(command.firstKey()),
        Replies.integer(command.lastKey()),
        Replies.integer(command.keyStep()),
        Replies.array(List.of()),
        Replies.array(List.of()),
        Replies.array(List.of()),
        Replies.array(subcommands)));
  }

  private RedisMessage info(Session session, Request request) {
    Set<String> sections = new LinkedHashSet<>();
    if (request.size() == 1) {
      sections.addAll(List.of("server", "clients", "keyspace"));
    }
    for (int i = 1; i < request.size(); i++) {
      String section = request.lower(i);
      if (section.equals("all") || section.equals("default") || section.equals("everything")) {
        sections.addAll(List.of("server", "clients", "keyspace"));
      } else if (INFO_SECTIONS.contains(section)) {
        sections.add(section);
      }
    }
    StringBuilder text = new StringBuilder();
    for (String section : List.of("server", "clients", "keyspace")) {
      if (!sections.contains(section)) {
        continue;
      }
      if (text.length() > 0) {
        text.append("\r\n");
      }
      text.append("# ").append(Character.toUpperCase(section.charAt(0))).append(section.substring(1)).append("\r\n");
      switch (section) {
        case "server" -> serverSection(session, text);
        case "clients" -> text.append("connected_clients:").append(server.connectedClients()).append("\r\n");
        default -> {
          long keys = keyCount.applyAsLong(session);
          if (keys > 0) {
            text.append("db0:keys=").append(keys).append(",expires=0,avg_ttl=0\r\n");
          }
        }
      }
    }
    return session.replies().verbatim(text.toString());
  }

  private void serverSection(Session session, StringBuilder text) {
    long uptimeSeconds = server.uptime().toSeconds();
    text.append("redis_version:").append(ServerState.REDIS_COMPATIBLE_VERSION).append("\r\n")
        .append("redis_mode:standalone\r\n")
        .append("server_name:").append(ServerState.SERVER_NAME).append("\r\n")
        .append("streamfold_version:").append(ServerState.streamfoldVersion()).append("\r\n")
        .append("tenant:").append(session.tenant()).append("\r\n")
        .append("os:").append(System.getProperty("os.name")).append(' ')
        .append(System.getProperty("os.version")).append(' ').append(System.getProperty("os.arch")).append("\r\n")
        .append("process_id:").append(ProcessHandle.current().pid()).append("\r\n")
        .append("tcp_port:").append(server.port()).append("\r\n")
        .append("uptime_in_seconds:").append(uptimeSeconds).append("\r\n")
        .append("uptime_in_days:").append(uptimeSeconds / 86_400).append("\r\n")
        .append("java_version:").append(System.getProperty("java.version").toLowerCase(Locale.ROOT)).append("\r\n");
  }
}
