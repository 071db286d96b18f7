package dev.streamfold.deploy.local;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Module boundaries of docs/style.md: who may import Pulsar, lettuce and the wire contract. */
class ArchitectureTest {
  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.streamfold");

  @Test
  void onlyTheLedgerAndTheFlinkSourceAdapterImportPulsar() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.ledger..", "dev.streamfold.transforms.source..")
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
    noClasses().that().resideOutsideOfPackages("dev.streamfold.views..")
        .should().dependOnClassesThat().resideInAPackage("io.lettuce..")
        .check(CLASSES);
  }

  @Test
  void protobufStaysInTheContractAndTheServiceLayers() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.api..", "dev.streamfold.ledger.grpc..",
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..", "dev.streamfold.deploy.local",
            // the server's metrics: a gRPC interceptor and the ingest listener's status codes
            "dev.streamfold.deploy.local.metrics",
            "dev.streamfold.cli..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.streamfold.api..", "com.google.protobuf..")
        .check(CLASSES);
  }

  @Test
  void onlyTheServiceLayersAndTheCliImportGrpc() {
    noClasses().that().resideOutsideOfPackages("dev.streamfold.api..", "dev.streamfold.ledger.grpc..",
            "dev.streamfold.transforms.grpc..", "dev.streamfold.query.grpc..", "dev.streamfold.deploy.local",
            // the server's metrics: a gRPC interceptor and the ingest listener's status codes
            "dev.streamfold.deploy.local.metrics",
            "dev.streamfold.cli..")
        .should().dependOnClassesThat().resideInAPackage("io.grpc..")
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
