package dev.streamfold.cli;

import dev.streamfold.deploy.local.stack.LocalStack;
import dev.streamfold.deploy.local.stack.StackOptions;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --data-dir} option: where the local stack keeps everything. */
final class DataDirOption {
  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Data directory of the local stack (default: $STREAMFOLD_DATA, else .streamfold in the"
          + " source tree).")
  Path dataDir;

  /** The data directory: the option, else {@link LocalStack#defaultDataDir()}. */
  Path resolve() {
    return dataDir != null ? dataDir.toAbsolutePath().normalize() : LocalStack.defaultDataDir();
  }

  /** A handle on the local stack of this data directory, printing to stdout. */
  LocalStack stack() {
    return new LocalStack(StackOptions.builder(resolve()).build(), System.out);
  }
}
