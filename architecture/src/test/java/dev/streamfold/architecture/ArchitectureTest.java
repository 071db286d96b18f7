package dev.streamfold.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..", "dev.streamfold.deploy.local",
            // the server's metrics: a gRPC interceptor and the ingest listener's status codes
            "dev.streamfold.deploy.local.metrics",
            "dev.streamfold.cli..", "dev.streamfold.bench..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.streamfold.api..", "com.google.protobuf..")
        .check(CLASSES);
  }

  @Test
  void onlyTheServiceLayersAndTheCliImportGrpc() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.api..", "dev.streamfold.ledger.grpc..",
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..", "dev.streamfold.deploy.local",
            // the server's metrics: a gRPC interceptor and the ingest listener's status codes
            "dev.streamfold.deploy.local.metrics",
            "dev.streamfold.cli..", "dev.streamfold.bench..")
        .should().dependOnClassesThat().resideInAPackage("io.grpc..")
        .check(CLASSES);
  }

  /**
   * testkit is test support: no main class depends on it, except on its process launchers ({@code
   * testkit.process}), which the local stack and the CLI's demo still use until they move to a module of their
   * own with the launcher.
   */
  @Test
  void noMainCodeUsesTestkit() {
    noClasses().that().resideOutsideOfPackage("dev.streamfold.testkit..")
        .should().dependOnClassesThat(resideInAPackage("dev.streamfold.testkit..")
            .and(resideOutsideOfPackage("dev.streamfold.testkit.process..")))
        .check(CLASSES);
    noClasses().that().resideOutsideOfPackages("dev.streamfold.testkit..", "dev.streamfold.deploy.local.stack..",
            "dev.streamfold.cli..")
        .should().dependOnClassesThat().resideInAPackage("dev.streamfold.testkit.process..")
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
