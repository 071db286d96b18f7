package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.deploy.local.stack.ServerLauncher;
import dev.streamfold.deploy.process.PulsarStandaloneProcess;
import dev.streamfold.deploy.process.TieredStorage;
import dev.streamfold.server.StreamfoldServerMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Offline checks of {@code deploy/compose}, {@code deploy/k8s} and {@code deploy/docker} against the code: every
 * YAML file parses; every image is pinned to the versions the build pins; every exposed port is one its service's
 * configuration listens on, and every {@code host:port} a manifest names is a service of the same deployment
 * listening there; every Streamfold setting is a flag {@link StreamfoldServerMain} accepts; the Pulsar broker gets
 * the local stack's broker settings (testkit's {@code PulsarStandaloneProcess} and {@code TieredStorage}) that are
 * not specific to one machine. No container runs: nothing here proves the images start.
 */
class DeployManifestsTest {

  /**
   * Flags the manifests already use that the server does not accept yet: the remote Flink session cluster's REST
   * address, added in parallel to this change. Delete an entry once StreamfoldServerMain accepts the flag
   * ({@link #pendingFlagsAreUsedButNotAcceptedYet} fails until then).
   */
  static final Set<String> PENDING_FLAGS = Set.of();

  /**
   * Keys of the local broker's config that are specific to one machine (loopback, ports, cache sizes, one
   * bookie), or that the Pulsar chart sets itself: a deployment need not copy them.
   */
  static final Set<String> MACHINE_LOCAL_BROKER_KEYS = Set.of("clusterName", "bindAddress", "advertisedAddress",
      "brokerServicePort", "webServicePort", "bookiePort", "listeningInterface", "allowLoopback", "allowEphemeralPorts",
      "managedLedgerDefaultEnsembleSize", "managedLedgerDefaultWriteQuorum", "managedLedgerDefaultAckQuorum",
      "dbStorage_writeCacheMaxSizeMb", "dbStorage_readAheadCacheMaxSizeMb", "functionsWorkerEnabled",
      "httpServerEnabled", "httpServerHost", "httpServerPort", "httpServerClass");
  /** Keys whose value names a place (directory, endpoint, bucket) that differs per deployment: present, any value. */
  static final Set<String> PLACE_BROKER_KEYS = Set.of("offloadersDirectory", "narExtractionDirectory",
      "managedLedgerOffloadServiceEndpoint", "managedLedgerOffloadBucket");

  /** {@code scheme://host:port} or {@code host:port}, host starting with a letter. */
  static final Pattern ADDRESS = Pattern.compile("(?:[a-z][a-z0-9+.-]*://)?([A-Za-z][A-Za-z0-9-]*):(\\d+)");

  static final Path ROOT = repositoryRoot();
  static final Path COMPOSE = ROOT.resolve("deploy/compose");
  static final Path K8S = ROOT.resolve("deploy/k8s");
  static final Path DOCKERFILE = ROOT.resolve("deploy/docker/Dockerfile");
  /** The Flink image with Streamfold's job classes in {@code lib/}. */
  static final Path FLINK_DOCKERFILE = ROOT.resolve("deploy/docker/flink/Dockerfile");
  /** The module whose shaded jar {@link #FLINK_DOCKERFILE} copies into {@code /opt/flink/lib}. */
  static final Path FLINK_LIB_MODULE = ROOT.resolve("deploy/flink-lib");
  /** Flink setting that keeps the fold SPI parent-first, as the embedded MiniCluster and RemoteFlinkIT's cluster do. */
  static final String PARENT_FIRST_FOLD = "classloader.parent-first-patterns.additional";

  @Test
  void everyYamlFileParses() throws IOException {
    List<Path> files = yamlFiles();
    assertThat(files).as("YAML files under deploy/compose and deploy/k8s").hasSizeGreaterThanOrEqualTo(6);
    for (Path file : files) {
      List<Object> documents = load(file);
      assertThat(documents).as(file + ": documents").isNotEmpty().doesNotContainNull();
    }
  }

  @Test
  void everyImageIsPinnedToTheVersionsOfTheBuild() throws Exception {
    Map<String, String> expected = expectedImageTags();
    Map<String, String> images = new TreeMap<>();
    for (Path file : yamlFiles()) {
      for (Object document : load(file)) {
        walk(document, "", (path, value) -> {
          if (path.endsWith(".image") && value instanceof String image) {
            images.put(image, ROOT.relativize(file) + " " + path);
          }
        });
        if (document instanceof Map<?, ?> values && values.containsKey("defaultPulsarImageRepository")) {
          images.put(values.get("defaultPulsarImageRepository") + ":" + values.get("defaultPulsarImageTag"),
              ROOT.relativize(file) + " defaultPulsarImageRepository/Tag");
        }
      }
    }
    for (Path dockerfile : List.of(DOCKERFILE, FLINK_DOCKERFILE)) {
      for (String line : Files.readAllLines(dockerfile)) {
        if (line.startsWith("FROM ")) {
          images.put(line.split("\\s+")[1], ROOT.relativize(dockerfile) + " FROM");
        }
      }
    }
    assertThat(images.keySet()).as("images").anyMatch(i -> i.startsWith("apachepulsar/"))
        .anyMatch(i -> i.startsWith("flink:")).anyMatch(i -> i.startsWith("redis:"))
        .anyMatch(i -> i.startsWith("andrewgaul/s3proxy:")).anyMatch(i -> i.startsWith("streamfold-server:"))
        .anyMatch(i -> i.startsWith("streamfold-flink:"));
    images.forEach((image, where) -> {
      int colon = image.lastIndexOf(':');
      assertThat(colon).as(where + ": image " + image + " has a tag").isPositive();
      String repository = image.substring(0, colon);
      assertThat(expected).as(where + ": image " + image + " is one of the pinned images").containsKey(repository);
      assertThat(image.substring(colon + 1)).as(where + ": tag of " + image).isEqualTo(expected.get(repository));
    });

    // Flink's S3 plugin jar is named by the Flink version too.
    String flinkVersion = rootProperty("flink.version");
    for (Path file : yamlFiles()) {
      Matcher plugin = Pattern.compile("flink-s3-fs-[a-z]+-([0-9][^\\s\"]*)\\.jar").matcher(Files.readString(file));
      while (plugin.find()) {
        assertThat(plugin.group(1)).as(file + ": " + plugin.group()).isEqualTo(flinkVersion);
      }
    }
  }

  @Test
  void composeExposesOnlyPortsItsServicesListenOnAndNamesOnlyThose() throws IOException {
    Map<String, Object> services = map(compose().get("services"));
    Map<String, Set<Integer>> listening = new TreeMap<>();
    for (Map.Entry<String, Object> service : services.entrySet()) {
      Map<String, Object> spec = map(service.getValue());
      Set<Integer> listens = listeningPorts(environment(spec).entrySet(), list(spec.get("command")));
      Set<Integer> exposed = new TreeSet<>();
      for (Object port : list(spec.get("expose"))) {
        exposed.add(Integer.parseInt(String.valueOf(port)));
      }
      for (Object port : list(spec.get("ports"))) {
        String text = String.valueOf(port);
        exposed.add(Integer.parseInt(text.substring(text.lastIndexOf(':') + 1)));
      }
      assertThat(listens).as("compose service " + service.getKey() + " listens on").containsAll(exposed);
      exposed.retainAll(listens);
      listening.put(service.getKey(), exposed);
    }
    assertThat(listening.get("streamfold")).as("streamfold's exposed ports: gRPC, RESP, metrics").hasSize(3);
    assertAddressesResolve("compose", compose(), listening);
  }

  @Test
  void k8sServicesTargetContainerPortsAndAddressesNameServices() throws IOException {
    List<Map<String, Object>> resources = k8sResources();
    Map<String, Set<Integer>> services = new TreeMap<>();
    for (Map<String, Object> service : ofKind(resources, "Service")) {
      String name = string(map(service.get("metadata")).get("name"));
      Map<String, Object> spec = map(service.get("spec"));
      Map<String, Object> selector = map(spec.get("selector"));
      List<Map<String, Object>> selected = ofKind(resources, "Deployment", "StatefulSet").stream()
          .filter(w -> map(map(map(map(w.get("spec")).get("template")).get("metadata")).get("labels"))
              .entrySet().containsAll(selector.entrySet()))
          .toList();
      assertThat(selected).as("workloads selected by Service " + name).hasSize(1);
      Map<String, Integer> containerPorts = new LinkedHashMap<>();
      for (Map<String, Object> container : containers(selected.get(0))) {
        for (Object port : list(container.get("ports"))) {
          Map<String, Object> p = map(port);
          containerPorts.put(p.containsKey("name") ? string(p.get("name")) : string(p.get("containerPort")),
              ((Number) p.get("containerPort")).intValue());
        }
      }
      Set<Integer> ports = new TreeSet<>();
      for (Object port : list(spec.get("ports"))) {
        Map<String, Object> p = map(port);
        String target = string(p.getOrDefault("targetPort", p.get("port")));
        assertThat(containerPorts.keySet().contains(target) || containerPorts.containsValue(intOr(target, -1)))
            .as("Service " + name + " targets " + target + " of " + containerPorts).isTrue();
        ports.add(((Number) p.get("port")).intValue());
      }
      services.put(name, ports);
    }
    // Services the Pulsar chart (release `pulsar`) and the Flink operator create.
    Map<String, Object> pulsarValues = pulsarValues();
    services.put("pulsar-broker", integers(map(map(pulsarValues.get("broker")).get("ports")).values()));
    services.put("pulsar-proxy", integers(map(map(pulsarValues.get("proxy")).get("ports")).values()));
    for (Map<String, Object> flink : ofKind(resources, "FlinkDeployment")) {
      Map<String, Object> conf = map(map(flink.get("spec")).get("flinkConfiguration"));
      services.put(string(map(flink.get("metadata")).get("name")) + "-rest",
          Set.of(intOr(string(conf.getOrDefault("rest.port", "8081")), -1)));
    }
    // Every listening port a container's settings name is one of its container ports.
    for (Map<String, Object> workload : ofKind(resources, "Deployment", "StatefulSet")) {
      for (Map<String, Object> container : containers(workload)) {
        Set<Integer> containerPorts = new TreeSet<>();
        list(container.get("ports")).forEach(p -> containerPorts.add(((Number) map(p).get("containerPort")).intValue()));
        Set<Integer> listens = listeningPorts(containerEnvironment(container, resources).entrySet(),
            concat(list(container.get("command")), list(container.get("args"))));
        assertThat(containerPorts).as("container ports of " + container.get("name")).isEqualTo(listens);
      }
    }
    for (Map<String, Object> resource : resources) {
      assertAddressesResolve("k8s " + resource.get("kind") + " " + map(resource.get("metadata")).get("name"),
          resource, services);
    }
    assertAddressesResolve("k8s pulsar-values.yaml", pulsarValues, services);
  }

  @Test
  void everyStreamfoldSettingIsAFlagTheServerAccepts() throws IOException {
    Set<String> known = new LinkedHashSet<>(StreamfoldServerMain.REQUIRED_FLAGS);
    known.addAll(StreamfoldServerMain.OPTIONAL_FLAGS);
    Set<String> allowed = new LinkedHashSet<>(known);
    allowed.addAll(PENDING_FLAGS);

    Map<String, Map<String, String>> settings = streamfoldSettings();
    assertThat(settings).as("Streamfold server settings by place").hasSize(3);
    settings.forEach((where, env) -> {
      for (Map.Entry<String, String> entry : env.entrySet()) {
        String key = entry.getKey();
        if (key.startsWith("--")) {
          assertThat(allowed).as(where + ": flag " + key).contains(key.substring(2));
        } else if (key.startsWith(StreamfoldServerMain.ENV_PREFIX)) {
          assertThat(allowed.stream().map(StreamfoldServerMain::envName))
              .as(where + ": " + key + " sets a flag of StreamfoldServerMain").contains(key);
        }
      }
    });
    for (String where : List.of("compose", "k8s")) {
      Map<String, String> env = settings.get(where);
      for (String flag : StreamfoldServerMain.REQUIRED_FLAGS) {
        assertThat(env).as(where + ": required flag --" + flag).containsKey(StreamfoldServerMain.envName(flag));
      }
      assertThat(env.get(StreamfoldServerMain.envName("bind-host"))).as(where + ": the server binds every interface")
          .isEqualTo("0.0.0.0");
    }
  }

  @Test
  void theRemoteFlinkAddressIsSetInEveryDeployment() throws IOException {
    Map<String, Map<String, String>> settings = streamfoldSettings();
    for (String where : List.of("compose", "k8s")) {
      assertThat(settings.get(where)).as(where + " runs the jobs on its Flink session cluster")
          .containsKey(StreamfoldServerMain.envName("flink-rest-address"));
    }
  }

  /**
   * Remote Flink writes each job's checkpoints under the server's data directory (the default
   * {@code --checkpoints-uri}), and replays and training sets write there from the TaskManagers; the server lists and
   * reads them. The compose Flink services once had no such volume (checkpoints went to a path inside each
   * container, so no view ever committed): every Flink process must mount the server's data volume at the server's
   * data directory, on Kubernetes through a ReadWriteMany claim, as the server's uid.
   */
  @Test
  void flinkProcessesShareTheServersDataDirectory() throws Exception {
    Map<String, Map<String, String>> settings = streamfoldSettings();
    String composeDir = settings.get("compose").get(StreamfoldServerMain.envName("data-dir"));
    Map<String, Object> services = map(compose().get("services"));
    List<Object> serverVolumes = list(map(services.get("streamfold")).get("volumes"));
    String shared = serverVolumes.stream().map(String::valueOf).filter(v -> v.endsWith(":" + composeDir)).findFirst()
        .orElseThrow(() -> new AssertionError("compose: the server's data directory " + composeDir + " is a volume"));
    for (String name : List.of("flink-jobmanager", "flink-taskmanager")) {
      assertThat(list(map(services.get(name)).get("volumes"))).as("compose service " + name + " mounts " + shared)
          .contains(shared);
    }

    List<Map<String, Object>> resources = k8sResources();
    String k8sDir = settings.get("k8s").get(StreamfoldServerMain.envName("data-dir"));
    Map<String, Object> server = ofKind(resources, "StatefulSet").stream()
        .filter(w -> containers(w).stream().anyMatch(c -> string(c.get("image")).startsWith("streamfold-server:")))
        .findFirst().orElseThrow();
    Map<String, Object> serverPod = map(map(map(server.get("spec")).get("template")).get("spec"));
    String claim = claimMountedAt(serverPod, k8sDir);
    assertThat(claim).as("k8s: the server's data directory " + k8sDir + " is a PersistentVolumeClaim").isNotNull();
    List<Map<String, Object>> claims = ofKind(resources, "PersistentVolumeClaim").stream()
        .filter(c -> claim.equals(map(c.get("metadata")).get("name"))).toList();
    assertThat(claims).as("PersistentVolumeClaim " + claim).hasSize(1);
    assertThat(list(map(claims.get(0).get("spec")).get("accessModes"))).as("claim " + claim).contains("ReadWriteMany");
    for (Map<String, Object> flink : ofKind(resources, "FlinkDeployment")) {
      Map<String, Object> pod = map(map(map(flink.get("spec")).get("podTemplate")).get("spec"));
      assertThat(claimMountedAt(pod, k8sDir)).as("FlinkDeployment pods mount claim " + claim + " at " + k8sDir)
          .isEqualTo(claim);
      assertThat(map(pod.get("securityContext")).get("runAsUser")).as("FlinkDeployment pods run as the server's uid")
          .isEqualTo(map(serverPod.get("securityContext")).get("runAsUser"));
    }

    Matcher serverUid = Pattern.compile("useradd [^\\n]*--uid (\\d+)").matcher(Files.readString(DOCKERFILE));
    Matcher flinkUid = Pattern.compile("usermod --uid (\\d+)[^\\n]* flink").matcher(Files.readString(FLINK_DOCKERFILE));
    assertThat(serverUid.find() && flinkUid.find()).as("uids set in both Dockerfiles").isTrue();
    assertThat(flinkUid.group(1)).as("the Flink image's flink user has the server's uid").isEqualTo(serverUid.group(1));
  }

  /** The claim of the volume a pod's first container mounts at {@code path}, or null. */
  static String claimMountedAt(Map<String, Object> pod, String path) {
    Map<String, Object> container = map(list(pod.get("containers")).get(0));
    for (Object mount : list(container.get("volumeMounts"))) {
      if (path.equals(map(mount).get("mountPath"))) {
        for (Object volume : list(pod.get("volumes"))) {
          if (map(volume).get("name").equals(map(mount).get("name"))) {
            return string(map(map(volume).get("persistentVolumeClaim")).get("claimName"));
          }
        }
      }
    }
    return null;
  }

  @Test
  void pendingFlagsAreUsedButNotAcceptedYet() throws IOException {
    Set<String> known = new LinkedHashSet<>(StreamfoldServerMain.REQUIRED_FLAGS);
    known.addAll(StreamfoldServerMain.OPTIONAL_FLAGS);
    for (String flag : PENDING_FLAGS) {
      assertThat(known).as("--" + flag + " is now accepted by StreamfoldServerMain: delete it from PENDING_FLAGS so "
          + "the manifests are checked against the code alone").doesNotContain(flag);
      Map<String, Map<String, String>> settings = streamfoldSettings();
      for (String where : List.of("compose", "k8s")) {
        assertThat(settings.get(where)).as(where + " sets pending flag --" + flag)
            .containsKey(StreamfoldServerMain.envName(flag));
      }
    }
  }

  @Test
  void brokerGetsTheLocalBrokersSettingsThatAreNotMachineLocal() throws Exception {
    Map<String, String> local = localBrokerConfig();
    Map<String, Object> composeEnv = environment(map(map(compose().get("services")).get("pulsar")));
    Map<String, Object> valuesConfig = map(map(pulsarValues().get("broker")).get("configData"));
    assertThat(local).containsEntry("managedLedgerOffloadDriver", TieredStorage.DRIVER);
    for (Map.Entry<String, Map<String, String>> deployment : Map.of(
        "compose pulsar", brokerKeys(composeEnv), "k8s pulsar-values.yaml", brokerKeys(valuesConfig)).entrySet()) {
      Map<String, String> config = deployment.getValue();
      local.forEach((key, value) -> {
        if (PLACE_BROKER_KEYS.contains(key)) {
          assertThat(config).as(deployment.getKey() + " sets " + key).containsKey(key);
        } else if (!MACHINE_LOCAL_BROKER_KEYS.contains(key)) {
          assertThat(config).as(deployment.getKey() + ": " + key + " as the local broker has it").containsEntry(key, value);
        }
      });
      for (String key : config.keySet()) {
        if (key.startsWith("managedLedgerOffload") || key.startsWith("offload")) {
          assertThat(local).as(deployment.getKey() + ": " + key + " is an offload key of TieredStorage").containsKey(key);
        }
      }
    }
    // The offloader's credentials come only from the broker's environment.
    assertThat(composeEnv).containsKeys(TieredStorage.ENV_ACCESS_KEY_ID, TieredStorage.ENV_ACCESS_KEY_SECRET);
    List<String> valuesEnv = list(map(pulsarValues().get("broker")).get("extreEnvs")).stream()
        .map(e -> string(map(e).get("name"))).toList();
    assertThat(valuesEnv).contains(TieredStorage.ENV_ACCESS_KEY_ID, TieredStorage.ENV_ACCESS_KEY_SECRET);
  }

  @Test
  void dockerfileRunsTheServerMainWithFlinksJava17Flags() throws IOException {
    String dockerfile = Files.readString(DOCKERFILE);
    assertThat(dockerfile).contains(StreamfoldServerMain.class.getName());
    assertThat(dockerfile).as("class path in Maven's order (protobuf-java before pulsar-client-all), not a wildcard")
        .doesNotContain("lib/*").contains("dependency:build-classpath");
    Matcher options = Pattern.compile("JDK_JAVA_OPTIONS=\"([^\"]*)\"").matcher(dockerfile);
    assertThat(options.find()).as("JDK_JAVA_OPTIONS in " + DOCKERFILE).isTrue();
    List<String> flags = List.of(options.group(1).replace("\\\n", " ").trim().split("\\s+"));
    assertThat(flags).containsAll(ServerLauncher.FLINK_JAVA17_FLAGS);
  }

  @Test
  void flinkClustersRunTheImageWithTheJobClassesInLib() throws Exception {
    String image = "streamfold-flink:" + pomValue(ROOT.resolve("pom.xml"), "version");
    Map<String, Object> services = map(compose().get("services"));
    for (String name : List.of("flink-jobmanager", "flink-taskmanager")) {
      Map<String, Object> service = map(services.get(name));
      assertThat(string(service.get("image"))).as("compose service " + name).isEqualTo(image);
      assertThat(string(strings(environment(service)).get("FLINK_PROPERTIES"))).as("compose service " + name)
          .contains(PARENT_FIRST_FOLD + ": dev.streamfold.transforms.fold.");
    }
    Map<String, Object> build = map(map(services.get("flink-jobmanager")).get("build"));
    assertThat(COMPOSE.resolve(string(build.get("context"))).resolve(string(build.get("dockerfile"))).normalize())
        .as("compose builds the Flink image from").isEqualTo(FLINK_DOCKERFILE);
    List<Map<String, Object>> flinks = ofKind(k8sResources(), "FlinkDeployment");
    assertThat(flinks).as("FlinkDeployments in deploy/k8s").isNotEmpty();
    for (Map<String, Object> flink : flinks) {
      Map<String, Object> spec = map(flink.get("spec"));
      assertThat(string(spec.get("image"))).as("FlinkDeployment image").isEqualTo(image);
      assertThat(string(map(spec.get("flinkConfiguration")).get(PARENT_FIRST_FOLD))).as("FlinkDeployment")
          .isEqualTo("dev.streamfold.transforms.fold.");
    }
  }

  @Test
  void flinkDockerfileCopiesTheJarMavenBuildsIntoLib() throws Exception {
    Element pom = document(FLINK_LIB_MODULE.resolve("pom.xml"));
    String version = text(child(child(pom, "parent"), "version"));
    assertThat(version).as("deploy/flink-lib's version").isEqualTo(pomValue(ROOT.resolve("pom.xml"), "version"));
    assertThat(child(pom, "version")).as("deploy/flink-lib inherits the version").isNull();
    Element build = child(pom, "build");
    assertThat(child(build, "finalName")).as("no finalName: the jar is <artifactId>-<version>.jar").isNull();
    String shade = pluginConfiguration(build, "maven-shade-plugin");
    assertThat(shade).as("the shaded jar replaces the module's own (neither attached nor written elsewhere)")
        .doesNotContain("shadedArtifactAttached").doesNotContain("outputFile").doesNotContain("finalName")
        .contains("ServicesResourceTransformer");
    String jar = "deploy/flink-lib/target/" + text(child(pom, "artifactId")) + "-" + version + ".jar";

    String dockerfile = Files.readString(FLINK_DOCKERFILE);
    assertThat(dockerfile).as(FLINK_DOCKERFILE + " builds the module with its profile and copies its jar")
        .contains("-P flink-lib -pl deploy/flink-lib -am package").contains("cp " + jar + " /streamfold-job.jar")
        .contains("COPY --from=build --chown=flink:flink /streamfold-job.jar /opt/flink/lib/");
    List<String> froms = dockerfile.lines().filter(l -> l.startsWith("FROM ")).toList();
    assertThat(froms.get(froms.size() - 1)).as("the image is the pinned official Flink image")
        .isEqualTo("FROM flink:" + rootProperty("flink.version") + "-java" + rootProperty("maven.compiler.release"));
    assertThat(Files.readString(ROOT.resolve("deploy/pom.xml"))).as("deploy/pom.xml's flink-lib profile")
        .containsPattern("<id>flink-lib</id>\\s*<modules><module>flink-lib</module></modules>");
    assertThat(FLINK_DOCKERFILE.resolveSibling("Dockerfile.dockerignore")).isRegularFile();

    // What goes into lib/: the transforms module and the Pulsar connector, none of flink-dist's own jars.
    Map<String, Element> dependencies = new LinkedHashMap<>();
    for (Node n = child(pom, "dependencies").getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element d) {
        dependencies.put(text(child(d, "groupId")) + ":" + text(child(d, "artifactId")), d);
      }
    }
    assertThat(List.copyOf(dependencies.keySet())).as("protobuf-java first: its classes win over pulsar-client-all's")
        .startsWith("com.google.protobuf:protobuf-java")
        .contains("dev.streamfold:streamfold-transforms", "org.apache.flink:flink-connector-pulsar");
    assertThat(dependencies.keySet()).filteredOn(k -> k.startsWith("org.apache.flink:"))
        .containsExactly("org.apache.flink:flink-connector-pulsar");
    assertThat(exclusions(dependencies.get("dev.streamfold:streamfold-transforms")))
        .contains("org.apache.flink:*", "org.slf4j:*", "org.apache.logging.log4j:*");
    assertThat(text(child(dependencies.get("org.apache.flink:flink-connector-pulsar"), "version")))
        .isEqualTo("${flink.pulsar.connector.version}");
  }

  /** The {@code <configuration>} text of a plugin of a {@code <build>}, empty when it has none. */
  static String pluginConfiguration(Element build, String artifactId) throws Exception {
    for (Node n = child(build, "plugins").getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element p && artifactId.equals(text(child(p, "artifactId")))) {
        javax.xml.transform.Transformer out = javax.xml.transform.TransformerFactory.newInstance().newTransformer();
        java.io.StringWriter text = new java.io.StringWriter();
        out.transform(new javax.xml.transform.dom.DOMSource(p), new javax.xml.transform.stream.StreamResult(text));
        return text.toString();
      }
    }
    throw new AssertionError("no " + artifactId + " in the build");
  }

  /** {@code groupId:artifactId} of a dependency's exclusions. */
  static List<String> exclusions(Element dependency) {
    List<String> result = new ArrayList<>();
    Element exclusions = child(dependency, "exclusions");
    for (Node n = exclusions == null ? null : exclusions.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        result.add(text(child(e, "groupId")) + ":" + text(child(e, "artifactId")));
      }
    }
    return result;
  }

  // ---- the manifests ----

  /** Streamfold server settings ({@code STREAMFOLD_*} variables and {@code --flags}) by place. */
  static Map<String, Map<String, String>> streamfoldSettings() throws IOException {
    Map<String, Map<String, String>> settings = new LinkedHashMap<>();
    Map<String, Object> composeServer = map(map(compose().get("services")).get("streamfold"));
    Map<String, String> composeSettings = strings(environment(composeServer));
    flags(list(composeServer.get("command")), composeSettings);
    settings.put("compose", composeSettings);

    List<Map<String, Object>> resources = k8sResources();
    List<Map<String, Object>> servers = new ArrayList<>();
    for (Map<String, Object> workload : ofKind(resources, "Deployment", "StatefulSet")) {
      containers(workload).stream().filter(c -> string(c.get("image")).startsWith("streamfold-server:"))
          .forEach(servers::add);
    }
    assertThat(servers).as("Streamfold server containers in deploy/k8s").hasSize(1);
    Map<String, String> k8sSettings = strings(containerEnvironment(servers.get(0), resources));
    flags(concat(list(servers.get(0).get("command")), list(servers.get(0).get("args"))), k8sSettings);
    settings.put("k8s", k8sSettings);

    Map<String, String> dockerSettings = new LinkedHashMap<>();
    Matcher env = Pattern.compile("(?m)^\\s*(STREAMFOLD_[A-Z_]+)=(\\S+)").matcher(Files.readString(DOCKERFILE));
    while (env.find()) {
      dockerSettings.put(env.group(1), env.group(2));
    }
    assertThat(dockerSettings).as("STREAMFOLD_ settings of " + DOCKERFILE).isNotEmpty();
    settings.put("Dockerfile", dockerSettings);
    return settings;
  }

  static void flags(List<Object> tokens, Map<String, String> into) {
    for (Object token : tokens) {
      for (String word : String.valueOf(token).split("\\s+")) {
        if (word.startsWith("--") && word.length() > 2) {
          into.put(word, "");
        }
      }
    }
  }

  static Map<String, Object> compose() throws IOException {
    return map(load(COMPOSE.resolve("compose.yaml")).get(0));
  }

  static Map<String, Object> pulsarValues() throws IOException {
    return map(load(K8S.resolve("pulsar-values.yaml")).get(0));
  }

  /** Every document with a {@code kind} under deploy/k8s. */
  static List<Map<String, Object>> k8sResources() throws IOException {
    List<Map<String, Object>> resources = new ArrayList<>();
    try (Stream<Path> files = Files.list(K8S)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (Object document : load(file)) {
          if (document instanceof Map<?, ?> m && m.containsKey("kind")) {
            resources.add(map(m));
          }
        }
      }
    }
    return resources;
  }

  static List<Map<String, Object>> ofKind(List<Map<String, Object>> resources, String... kinds) {
    return resources.stream().filter(r -> List.of(kinds).contains(r.get("kind"))).toList();
  }

  static List<Map<String, Object>> containers(Map<String, Object> workload) {
    Map<String, Object> pod = map(map(map(workload.get("spec")).get("template")).get("spec"));
    return concat(list(pod.get("containers")), list(pod.get("initContainers"))).stream()
        .map(DeployManifestsTest::map).toList();
  }

  /** A container's environment: its ConfigMaps ({@code envFrom}) then its {@code env} values (secrets as "secret"). */
  static Map<String, Object> containerEnvironment(Map<String, Object> container, List<Map<String, Object>> resources) {
    Map<String, Object> env = new LinkedHashMap<>();
    for (Object from : list(container.get("envFrom"))) {
      String name = string(map(map(from).get("configMapRef")).get("name"));
      List<Map<String, Object>> configMaps = ofKind(resources, "ConfigMap").stream()
          .filter(c -> name.equals(map(c.get("metadata")).get("name"))).toList();
      assertThat(configMaps).as("ConfigMap " + name + " of container " + container.get("name")).hasSize(1);
      env.putAll(map(configMaps.get(0).get("data")));
    }
    for (Object entry : list(container.get("env"))) {
      Map<String, Object> e = map(entry);
      env.put(string(e.get("name")), e.containsKey("value") ? e.get("value") : "secret");
    }
    return env;
  }

  /** A compose service's environment, as a map (compose also allows a list of {@code K=V}). */
  static Map<String, Object> environment(Map<String, Object> service) {
    Object env = service.get("environment");
    if (env instanceof List<?> entries) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Object entry : entries) {
        String text = String.valueOf(entry);
        int eq = text.indexOf('=');
        map.put(eq < 0 ? text : text.substring(0, eq), eq < 0 ? "" : text.substring(eq + 1));
      }
      return map;
    }
    return env == null ? Map.of() : map(env);
  }

  /**
   * Return the ports a process listens on according to its settings: variables named like {@code *_PORT} or
   * {@code *Port}, endpoints bound to {@code 0.0.0.0}, Flink properties {@code *.port}, and {@code --port N}.
   */
  static Set<Integer> listeningPorts(Iterable<Map.Entry<String, Object>> env, List<Object> command) {
    Set<Integer> ports = new TreeSet<>();
    for (Map.Entry<String, Object> entry : env) {
      String key = entry.getKey();
      String value = String.valueOf(entry.getValue());
      if ((key.endsWith("_PORT") || key.endsWith("Port")) && value.matches("\\d+")) {
        ports.add(Integer.parseInt(value));
      }
      Matcher bound = Pattern.compile("0\\.0\\.0\\.0:(\\d+)").matcher(value);
      if (bound.find()) {
        ports.add(Integer.parseInt(bound.group(1)));
      }
      Matcher property = Pattern.compile("(?m)^\\s*[a-z.-]+\\.port:\\s*(\\d+)\\s*$").matcher(value);
      while (property.find()) {
        ports.add(Integer.parseInt(property.group(1)));
      }
    }
    for (int i = 0; i + 1 < command.size(); i++) {
      if ("--port".equals(String.valueOf(command.get(i)))) {
        ports.add(Integer.parseInt(String.valueOf(command.get(i + 1))));
      }
    }
    return ports;
  }

  /** Assert that every {@code host:port} in a document's values names a service listening on that port. */
  static void assertAddressesResolve(String where, Object document, Map<String, Set<Integer>> services) {
    List<String> checked = new ArrayList<>();
    walk(document, "", (path, value) -> {
      if (!(value instanceof String text) || path.endsWith(".image") || path.endsWith(".ports")
          || path.contains(".ports[")) {
        return;
      }
      Matcher address = ADDRESS.matcher(text);
      while (address.find()) {
        String host = address.group(1);
        int port = Integer.parseInt(address.group(2));
        assertThat(services).as(where + " " + path + ": host " + host + " in " + text + " is a service").containsKey(host);
        assertThat(services.get(host)).as(where + " " + path + ": " + host + " listens on " + port).contains(port);
        checked.add(address.group());
      }
    });
    if (where.equals("compose")) {
      assertThat(checked).as("addresses checked in compose").hasSizeGreaterThanOrEqualTo(5);
    }
  }

  /** Broker config keys from a compose environment or chart configData: {@code PULSAR_PREFIX_k}, or a plain key. */
  static Map<String, String> brokerKeys(Map<String, Object> env) {
    Map<String, String> keys = new TreeMap<>();
    env.forEach((key, value) -> {
      if (key.startsWith("PULSAR_PREFIX_")) {
        keys.put(key.substring("PULSAR_PREFIX_".length()), String.valueOf(value));
      } else if (key.matches("[a-z][A-Za-z0-9_]*")) {
        keys.put(key, String.valueOf(value));
      }
    });
    return keys;
  }

  // ---- the code and the build ----

  /** The local stack's broker config (offloading with TieredStorage's defaults), as key to value. */
  static Map<String, String> localBrokerConfig() throws Exception {
    TieredStorage offload = TieredStorage.builder(URI.create("http://127.0.0.1:9000"), "bucket").build();
    Method config = PulsarStandaloneProcess.class.getDeclaredMethod("config", int.class, int.class, int.class,
        int.class, Path.class, TieredStorage.class);
    config.setAccessible(true);
    String text = (String) config.invoke(null, 6650, 8080, 3181, 8000, Path.of("/pulsar/data"), offload);
    Map<String, String> keys = new TreeMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        keys.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    assertThat(keys).as("local broker config").containsKeys("managedLedgerOffloadDriver", "defaultRetentionTimeInMinutes");
    return keys;
  }

  /** Image repository to the one tag allowed, from the poms. */
  static Map<String, String> expectedImageTags() throws Exception {
    String pulsar = rootProperty("pulsar.broker.version");
    String java = rootProperty("maven.compiler.release");
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("apachepulsar/pulsar", pulsar);
    tags.put("apachepulsar/pulsar-all", pulsar);
    tags.put("flink", rootProperty("flink.version") + "-java" + java);
    tags.put("andrewgaul/s3proxy", "s3proxy-" + pomProperty(ROOT.resolve("deploy/s3proxy/pom.xml"), "s3proxy.version"));
    tags.put("redis", pomProperty(ROOT.resolve("deploy/pom.xml"), "redis.image.version"));
    tags.put("streamfold-server", pomValue(ROOT.resolve("pom.xml"), "version"));
    tags.put("streamfold-flink", pomValue(ROOT.resolve("pom.xml"), "version"));
    tags.put("maven", "3-eclipse-temurin-" + java);
    tags.put("eclipse-temurin", java + "-jre");
    assertThat(tags.values()).as("pinned versions").doesNotContainNull().noneMatch(String::isBlank);
    return tags;
  }

  static String rootProperty(String name) throws Exception {
    return pomProperty(ROOT.resolve("pom.xml"), name);
  }

  static String pomProperty(Path pom, String name) throws Exception {
    Element properties = child(document(pom), "properties");
    return properties == null ? null : text(child(properties, name));
  }

  static String pomValue(Path pom, String name) throws Exception {
    return text(child(document(pom), name));
  }

  static Element document(Path pom) throws Exception {
    try (InputStream in = Files.newInputStream(pom)) {
      return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in).getDocumentElement();
    }
  }

  static Element child(Element parent, String name) {
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  static String text(Element element) {
    return element == null ? null : element.getTextContent().trim();
  }

  // ---- YAML helpers ----

  static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("deploy/compose")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root with deploy/compose above " + Path.of("").toAbsolutePath());
  }

  static List<Path> yamlFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path dir : List.of(COMPOSE, K8S)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().forEach(files::add);
      }
    }
    return files;
  }

  static List<Object> load(Path file) throws IOException {
    List<Object> documents = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(file)) {
      for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(reader)) {
        if (document != null) {
          documents.add(document);
        }
      }
    }
    return documents;
  }

  /** Visit every scalar with its path, e.g. {@code .services.redis.image} or {@code .spec.ports[0].port}. */
  static void walk(Object node, String path, BiConsumer<String, Object> visitor) {
    if (node instanceof Map<?, ?> m) {
      m.forEach((k, v) -> walk(v, path + "." + k, visitor));
    } else if (node instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        walk(l.get(i), path + "[" + i + "]", visitor);
      }
    } else {
      visitor.accept(path, node);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object node) {
    return node == null ? Map.of() : (Map<String, Object>) node;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object node) {
    return node == null ? List.of() : (List<Object>) node;
  }

  static List<Object> concat(List<Object> a, List<Object> b) {
    List<Object> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  static String string(Object value) {
    return value == null ? "" : String.valueOf(value);
  }

  static Map<String, String> strings(Map<String, Object> map) {
    Map<String, String> strings = new LinkedHashMap<>();
    map.forEach((k, v) -> strings.put(k, String.valueOf(v)));
    return strings;
  }

  static Set<Integer> integers(java.util.Collection<Object> values) {
    Set<Integer> ints = new TreeSet<>();
    values.forEach(v -> ints.add(Integer.parseInt(String.valueOf(v))));
    return ints;
  }

  static int intOr(String text, int otherwise) {
    return text.matches("\\d+") ? Integer.parseInt(text) : otherwise;
  }
}
