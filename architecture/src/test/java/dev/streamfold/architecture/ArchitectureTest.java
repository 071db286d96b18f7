package dev.streamfold.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.streamfold.schema.FromWire;
import org.junit.jupiter.api.Test;

/**
 * Module boundaries of docs/style.md, over the main classes of every module (this module's class path holds them
 * all): who may use Pulsar, the Pulsar connector, lettuce, protobuf, gRPC and testkit, and no cycles between
 * modules or packages. The benchmarks use the raw Pulsar and Redis clients on purpose: they are the baselines.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.streamfold");

  @Test
  void onlyTheLedgerAndTheFlinkSourceAdapterImportPulsar() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.ledger..", "dev.streamfold.transforms.source..",
            "dev.streamfold.bench..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.pulsar..")
        .check(CLASSES);
  }

  @Test
  void onlyTheFlinkSourceAdapterImportsThePulsarConnector() {
    noClasses().that().resideOutsideOfPackage("dev.streamfold.transforms.source..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.flink.connector.pulsar..")
        .check(CLASSES);
  }

  @Test
  void onlyViewsImportsLettuce() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.views..", "dev.streamfold.bench..")
        .should().dependOnClassesThat().resideInAPackage("io.lettuce..")
        .check(CLASSES);
  }

  @Test
  void protobufStaysInTheContractAndTheServiceLayers() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.api..", "dev.streamfold.ledger.grpc..",
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..",
            // the server: its gRPC services, a metrics interceptor and the ingest listener's status codes
            "dev.streamfold.server..",
            "dev.streamfold.cli..", "dev.streamfold.bench..")
        .and().doNotBelongToAnyOf(FromWire.class)
        .should().dependOnClassesThat().resideInAnyPackage("dev.streamfold.api..", "com.google.protobuf..")
        .check(CLASSES);
  }

  @Test
  void onlyTheServiceLayersAndTheCliImportGrpc() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.api..", "dev.streamfold.ledger.grpc..",
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..",
            // the server: its gRPC services, a metrics interceptor and the ingest listener's status codes
            "dev.streamfold.server..",
            "dev.streamfold.cli..", "dev.streamfold.bench..")
        .should().dependOnClassesThat().resideInAPackage("io.grpc..")
        .check(CLASSES);
  }

  /** testkit is test support (test scope in every module): no main class depends on it. */
  @Test
  void noMainCodeUsesTestkit() {
    noClasses().that().resideOutsideOfPackage("dev.streamfold.testkit..")
        .should().dependOnClassesThat().resideInAPackage("dev.streamfold.testkit..")
        .check(CLASSES);
  }

  /**
   * The CLI and the local stack talk to the server over gRPC and the Redis protocol and start it as a process:
   * they compile against none of its modules. The words they share with the server (stream names, message IDs,
   * positions, tokens) are in {@code core}; the checks an event must pass, which the CLI runs on rows before it
   * sends them so that it refuses exactly what the server refuses, are in {@code schema}.
   */
  @Test
  void theCliAndTheLocalStackStayOutsideTheServer() {
    noClasses().that().resideInAnyPackage("dev.streamfold.cli..", "dev.streamfold.deploy..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.streamfold.server..", "dev.streamfold.transforms..",
            "dev.streamfold.views..", "dev.streamfold.query..", "dev.streamfold.ledger..")
        .check(CLASSES);
  }

  /**
   * What an event and a stream's columns are, and the checks every event passes, depend on the vocabulary, a
   * JSON tokenizer and (for the conversion of wire events, {@link FromWire}) the gRPC contract alone: no Pulsar,
   * no server.
   */
  @Test
  void theSchemaIsSharedBetweenServerAndClients() {
    classes().that().resideInAPackage("dev.streamfold.schema..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("dev.streamfold.schema..", "dev.streamfold.core..",
            "dev.streamfold.api..", "com.fasterxml.jackson..", "java..")
        .check(CLASSES);
  }

  /** The vocabulary every module shares depends on the JDK alone. */
  @Test
  void coreDependsOnTheJdkAlone() {
    classes().that().resideInAPackage("dev.streamfold.core..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("dev.streamfold.core..", "java..")
        .check(CLASSES);
  }

  /** The modules' packages (ledger, views, transforms, ...) depend on each other in one direction only. */
  @Test
  void modulesHaveNoCycles() {
    slices().matching("dev.streamfold.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  /** Nor do any two packages: a role package never reaches back into its facade's package. */
  @Test
  void packagesHaveNoCycles() {
    slices().matching("dev.streamfold.(**)").should().beFreeOfCycles().check(CLASSES);
  }
}
