package io.nodeatlas.cli.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.run.RunCommand;
import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.testing.Conformance;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The deploy/ manifests and the systemd unit, checked the way a cluster and systemd would read them. */
class PackagingTest {

  static final Path REPO = Repo.root();

  static List<HasMetadata> manifests() throws IOException {
    List<HasMetadata> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(REPO.resolve("deploy"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml")).sorted().toList()) {
        for (String doc : Files.readString(f).split("(?m)^---\\s*$")) {
          if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
            continue;
          }
          Object parsed = Serialization.unmarshal(doc);
          assertThat(parsed).as(f + " parses as a known kind").isInstanceOf(HasMetadata.class)
              .isNotInstanceOf(GenericKubernetesResource.class);
          List<String> unknown = new ArrayList<>();
          unknownFields(parsed, f.getFileName() + ":" + ((HasMetadata) parsed).getKind(), unknown);
          assertThat(unknown).as("fields the API does not know in " + f).isEmpty();
          out.add((HasMetadata) parsed);
        }
      }
    }
    return out;
  }

  /** fabric8 keeps unknown fields in additionalProperties instead of failing; treat any as an error. */
  static void unknownFields(Object o, String where, List<String> out) {
    if (o == null) {
      return;
    }
    if (o instanceof Collection<?> c) {
      c.forEach(i -> unknownFields(i, where + "[]", out));
      return;
    }
    if (o instanceof Map<?, ?> m) {
      m.forEach((k, v) -> unknownFields(v, where + "." + k, out));
      return;
    }
    if (!(o instanceof KubernetesResource) || !o.getClass().getName().startsWith("io.fabric8")) {
      return;
    }
    for (Method getter : o.getClass().getMethods()) {
      if (!getter.getName().startsWith("get") || getter.getParameterCount() != 0 || getter.getDeclaringClass() == Object.class) {
        continue;
      }
      try {
        Object v = getter.invoke(o);
        if (getter.getName().equals("getAdditionalProperties")) {
          if (v instanceof Map<?, ?> extra && !extra.isEmpty()) {
            out.add(where + ": " + extra.keySet());
          }
        } else {
          unknownFields(v, where + "." + getter.getName().substring(3), out);
        }
      } catch (ReflectiveOperationException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void everyManifestIsAKnownKindWithoutUnknownFields() throws IOException {
    assertThat(manifests()).extracting(HasMetadata::getKind).contains("DaemonSet", "ClusterRole", "ClusterRoleBinding",
        "ServiceAccount", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "DeviceClass", "Namespace");
  }

  @Test
  void deviceClassesCoverEveryPublishedType() throws IOException {
    List<DeviceClass> classes = manifests().stream().filter(DeviceClass.class::isInstance).map(DeviceClass.class::cast).toList();

    assertThat(classes).extracting(c -> c.getMetadata().getName()).contains("nodeatlas-gpu", "nodeatlas-mig",
        "nodeatlas-rdma", "nodeatlas-cpu", "nodeatlas-hugepages-2mi", "nodeatlas-hugepages-1gi", "nodeatlas-nic");
    assertThat(classes).allSatisfy(c -> assertThat(c.getSpec().getSelectors()).singleElement()
        .satisfies(s -> assertThat(s.getCel().getExpression()).contains("device.driver == \"nodeatlas.io\"")));
  }

  @Test
  void theDaemonSetIsUnprivilegedAndMountsWhatTheAgentUses() throws IOException {
    DaemonSet ds = manifests().stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).findFirst().orElseThrow();
    var pod = ds.getSpec().getTemplate().getSpec();
    var c = pod.getContainers().get(0);

    assertThat(c.getSecurityContext().getPrivileged()).isFalse();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getVolumeMounts()).anySatisfy(m -> {
      assertThat(m.getMountPath()).isEqualTo("/host-sys");
      assertThat(m.getReadOnly()).isTrue();
    });
    assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath()).contains("/var/lib/kubelet/plugins_registry",
        "/var/lib/kubelet/plugins/nodeatlas.io", "/var/run/cdi")
        .doesNotContain("/var/lib/kubelet/plugins", "/var/lib/kubelet");
    // Host /proc (boot ID, default routes) and the driver root only read-only.
    assertThat(c.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/host-proc") || m.getMountPath().equals("/driver-root"))
        .hasSize(2).allSatisfy(m -> assertThat(m.getReadOnly()).isTrue());
    // Rolling updates: the new pod serves beside the old one until it goes, with sockets named by the pod UID.
    assertThat(ds.getSpec().getUpdateStrategy().getRollingUpdate().getMaxSurge().getIntVal()).isEqualTo(1);
    assertThat(ds.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("NODEATLAS_ROLLING_UPDATE_UID");
      assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.uid");
    });
    assertThat(pod.getHostNetwork()).isNull();
    assertThat(pod.getHostPID()).isNull();
    // CDI specs name the driver's files as the host has them (the runtime opens them there): the driver
    // root as the host names it is the volume's host path; the agent reads it where it is mounted.
    var env = new java.util.HashMap<String, String>();
    c.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));
    var driverVolume = pod.getVolumes().stream().filter(v -> v.getName().equals("driver-root")).findFirst().orElseThrow();
    var driverMount = c.getVolumeMounts().stream().filter(m -> m.getName().equals("driver-root")).findFirst().orElseThrow();
    assertThat(env.get("NVIDIA_DRIVER_ROOT")).isEqualTo(driverVolume.getHostPath().getPath());
    assertThat(env.get("CONTAINER_DRIVER_ROOT")).isEqualTo(driverMount.getMountPath());
    // Every env var the DaemonSet sets is a twin of a real `run` flag, but those the NVIDIA Container
    // Toolkit reads (DaemonSetPathsTest).
    CommandLine run = NodeAtlasCommand.configure(new CommandLine(new RunCommand()), NodeAtlasCommand.installedSources());
    String help = run.getUsageMessage().replaceAll("\\s+", " ");
    List<String> toolkit = List.of("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_MIG_MONITOR_DEVICES");
    c.getEnv().stream().filter(e -> !toolkit.contains(e.getName()))
        .forEach(e -> assertThat(help).as(e.getName()).contains("env " + e.getName()));
  }

  @Test
  void rbacGrantsOnlyWhatTheAgentCalls() throws IOException {
    ClusterRole role = manifests().stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast).findFirst().orElseThrow();

    assertThat(role.getRules()).extracting(r -> r.getResources().get(0) + ":" + r.getVerbs())
        .containsExactlyInAnyOrder("resourceslices:[get, list, watch, create, update, patch, delete]",
            "resourceclaims:[get, list, watch]", "resourceclaims/status:[update, patch]", "nodes:[get]");
  }

  @Test
  void systemdAcceptsTheUnit() throws Exception {
    boolean available = Files.isExecutable(Path.of("/usr/bin/systemd-analyze"))
        || Files.isExecutable(Path.of("/bin/systemd-analyze"));
    Conformance.requireTool("systemd-analyze", available);
    Process p = new ProcessBuilder("systemd-analyze", "verify", REPO.resolve("systemd/nodeatlas.service").toString())
        .redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out.lines().filter(l -> l.contains("nodeatlas.service"))).as(out).isEmpty();
    assertThat(p.exitValue()).as(out).isZero();
  }
}
