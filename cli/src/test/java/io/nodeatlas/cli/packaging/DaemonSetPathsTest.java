package io.nodeatlas.cli.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.run.RunCommand;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * deploy/daemonset.yaml read as the kubelet runs it: every path `nodeatlas run` opens, by each of its
 * path flags as the DaemonSet sets them, lies on a volume mount of the right kind. A new path flag fails
 * here until it is classified below.
 */
class DaemonSetPathsTest {

  /** How the agent uses the path a flag names, in the DaemonSet. */
  enum Use {
    /** Read in the container, from a read-only host mount (sysfs, procfs, /dev, the driver root). */
    READ_FROM_HOST,
    /** Written in the container and read by the kubelet or the runtime on the host at the same path. */
    SHARED_WITH_HOST,
    /** Written in the container and kept across restarts (the checkpoint). */
    KEPT_ON_HOST,
    /** Named in CDI specs for the host, never opened by the agent. */
    HOST_NAME_ONLY,
    /** Not used by the DaemonSet: the flag must stay unset there. */
    UNSET
  }

  static final Map<String, Use> PATH_FLAGS = Map.ofEntries(
      Map.entry("--sysfs-root", Use.READ_FROM_HOST),
      Map.entry("--procfs-root", Use.READ_FROM_HOST),
      Map.entry("--dev-root", Use.READ_FROM_HOST),
      Map.entry("--container-driver-root", Use.READ_FROM_HOST),
      Map.entry("--kubelet-root", Use.SHARED_WITH_HOST),
      Map.entry("--cdi-root", Use.SHARED_WITH_HOST),
      Map.entry("--state-dir", Use.KEPT_ON_HOST),
      Map.entry("--nvidia-driver-root", Use.HOST_NAME_ONLY),
      Map.entry("--hook-path", Use.HOST_NAME_ONLY),
      // The container's own root is the host root's stand-in; the roots above replace its parts.
      Map.entry("--host-root", Use.UNSET),
      // In-cluster credentials; no config file in the image; NVML is found under the driver root.
      Map.entry("--kubeconfig", Use.UNSET),
      Map.entry("--config", Use.UNSET),
      Map.entry("--nvml-library", Use.UNSET),
      Map.entry("--replay-report", Use.UNSET),
      // The GPU sharing tools (nvidia-smi, nvidia-cuda-mps-control) are the driver's own, run from the
      // mounted driver root with its libraries (theSharingToolsRunFromTheMountedDriverRoot).
      Map.entry("--nvidia-smi", Use.UNSET),
      Map.entry("--gpu-mps-control", Use.UNSET),
      // NFD's features.d is a directory of the host's /etc that the DaemonSet leaves alone: labels reach
      // NFD as a NodeFeature object (`nodeatlas labels --apply`) instead.
      Map.entry("--features-dir", Use.UNSET));

  static final Pattern ENV = Pattern.compile("env ([A-Z][A-Z0-9_]*)");

  final DaemonSet ds = PackagingTest.manifests().stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
      .findFirst().orElseThrow();
  final PodSpec pod = ds.getSpec().getTemplate().getSpec();
  final Container agent = pod.getContainers().stream().filter(c -> c.getName().equals("agent")).findFirst().orElseThrow();
  final Map<String, String> env = new HashMap<>();

  DaemonSetPathsTest() throws IOException {
    agent.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));
  }

  /** Every option of `run` that takes a path, by long name, with its env twin. */
  static Map<String, String> pathFlags() {
    CommandLine run = NodeAtlasCommand.configure(new CommandLine(new RunCommand()), NodeAtlasCommand.installedSources());
    Map<String, String> out = new TreeMap<>();
    for (OptionSpec o : run.getCommandSpec().options()) {
      if (List.of("DIR", "FILE", "PATH").contains(o.paramLabel().replaceAll("[<>]", ""))) {
        Matcher m = ENV.matcher(String.join(" ", o.description()));
        assertThat(m.find()).as(o.longestName() + " has an env twin").isTrue();
        out.put(java.util.Arrays.stream(o.names()).filter(n -> n.startsWith("--"))
            .min(java.util.Comparator.comparingInt(String::length)).orElseThrow(), m.group(1));
      }
    }
    return out;
  }

  @Test
  void everyPathFlagOfRunIsClassified() {
    assertThat(PATH_FLAGS.keySet()).as("path flags of `nodeatlas run`: classify a new one in PATH_FLAGS")
        .containsExactlyInAnyOrderElementsOf(pathFlags().keySet());
  }

  @Test
  void everyPathTheAgentOpensIsMountedAsItIsUsed() {
    Map<String, String> flags = pathFlags();
    for (var e : PATH_FLAGS.entrySet()) {
      String twin = flags.get(e.getKey());
      String value = env.get(twin);
      String what = e.getKey() + " (env " + twin + ")";
      if (e.getValue() == Use.UNSET) {
        assertThat(value).as(what + " is not set by the DaemonSet").isNull();
        continue;
      }
      assertThat(value).as(what + " is set by the DaemonSet, not left to a default").isNotNull();
      switch (e.getValue()) {
        case READ_FROM_HOST -> assertThat(mountOf(value)).as(what + " " + value + " lies on a read-only mount")
            .hasValueSatisfying(m -> assertThat(m.getReadOnly()).isTrue());
        case SHARED_WITH_HOST, KEPT_ON_HOST -> {
          // The kubelet root itself is not mounted: the plugin's directories below it are.
          List<String> paths = e.getKey().equals("--kubelet-root") ? kubeletDirs(value) : List.of(value);
          for (String p : paths) {
            VolumeMount m = mountOf(p).orElseThrow(() -> new AssertionError(what + ": " + p + " is not mounted"));
            assertThat(m.getReadOnly()).as(what + " " + p + " is writable").isNotEqualTo(Boolean.TRUE);
            String host = hostPathOf(m).orElseThrow(() -> new AssertionError(p + " is not on a host path"));
            if (e.getValue() == Use.SHARED_WITH_HOST) {
              assertThat(host + subPath(m, p)).as(what + ": the host reads " + p + " at the same path").isEqualTo(p);
            }
          }
        }
        default -> { }
      }
    }
  }

  @Test
  void hostRootsAreTheHostsOwnSysProcAndDev() {
    assertThat(hostPathOf(mountOf(env.get("NODEATLAS_SYSFS_ROOT")).orElseThrow())).contains("/sys");
    assertThat(hostPathOf(mountOf(env.get("NODEATLAS_PROCFS_ROOT")).orElseThrow())).contains("/proc");
    assertThat(hostPathOf(mountOf(env.get("NODEATLAS_DEV_ROOT")).orElseThrow())).contains("/dev");
    // CDI specs name the driver's files as the host has them: the mounted driver root's host path.
    assertThat(hostPathOf(mountOf(env.get("CONTAINER_DRIVER_ROOT")).orElseThrow())).contains(env.get("NVIDIA_DRIVER_ROOT"));
  }

  @Test
  void theSharingToolsRunFromTheMountedDriverRoot() {
    // Unset tool flags and a container driver root: the agent runs the driver root's nvidia-smi and
    // nvidia-cuda-mps-control (NVIDIA's DRA driver's convention), read-only, from the host's driver root.
    assertThat(env).doesNotContainKeys("NODEATLAS_NVIDIA_SMI", "NODEATLAS_GPU_MPS_CONTROL");
    VolumeMount root = mountOf(env.get("CONTAINER_DRIVER_ROOT")).orElseThrow();
    assertThat(root.getMountPath()).isEqualTo("/driver-root");
    assertThat(root.getReadOnly()).isTrue();
    assertThat(hostPathOf(root)).contains(env.get("NVIDIA_DRIVER_ROOT"));
    // An MPS claim's containers bind-mount the daemon's pipe and log directories, which lie under the state
    // directory, by the host path the agent writes into their CDI spec: it must be the same path on the host.
    String state = env.get("NODEATLAS_STATE_DIR");
    VolumeMount m = mountOf(state).orElseThrow();
    assertThat(hostPathOf(m).orElseThrow() + subPath(m, state)).as("the state directory's host path").isEqualTo(state);
  }

  @Test
  void theHookLiesWhereTheSpecsNameIt() {
    Container init = pod.getInitContainers().stream().filter(c -> c.getName().equals("install-hook")).findFirst().orElseThrow();
    String script = init.getCommand().get(init.getCommand().size() - 1);
    String target = script.substring(script.lastIndexOf(' ') + 1);
    VolumeMount m = init.getVolumeMounts().stream().filter(v -> target.startsWith(v.getMountPath() + "/")).findFirst()
        .orElseThrow(() -> new AssertionError("the init container writes " + target + " on no mount"));
    assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE);
    assertThat(hostPathOf(m).orElseThrow() + subPath(m, target)).as("the host path of the copied hook")
        .isEqualTo(env.get("NODEATLAS_HOOK_PATH"));
  }

  @Test
  void aReadOnlyRootStillHasAWritableTmp() {
    // The JVM's java.io.tmpdir: JNA unpacks its native library there.
    assertThat(agent.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(mountOf("/tmp")).hasValueSatisfying(m -> {
      assertThat(m.getMountPath()).isEqualTo("/tmp");
      assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE);
    });
  }

  @Test
  void nvmlGetsTheGpuDeviceNodesFromTheRuntime() {
    // NVML opens /dev/nvidiactl and /dev/nvidia<N> in the container's own /dev, where an unprivileged
    // container has only what its runtime gave it: the NVIDIA Container Toolkit's variables ask for them,
    // as NVIDIA's k8s-device-plugin does (all GPUs, utility libraries only, MIG monitor capability).
    assertThat(agent.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(env).containsEntry("NVIDIA_VISIBLE_DEVICES", "all").containsEntry("NVIDIA_DRIVER_CAPABILITIES", "utility")
        .containsEntry("NVIDIA_MIG_MONITOR_DEVICES", "all");
    assertThat(agent.getVolumeMounts()).extracting(VolumeMount::getMountPath).doesNotContain("/dev");
  }

  /** The plugin directories the agent creates sockets in (KubeletPaths), under the kubelet root. */
  private List<String> kubeletDirs(String kubeletRoot) {
    String driver = env.getOrDefault("NODEATLAS_DRIVER_NAME", "nodeatlas.io");
    KubeletPaths paths = new KubeletPaths(Path.of(kubeletRoot), driver, "0e2e0000-0000-4000-8000-000000000001");
    return List.of(paths.registrationSocket().getParent().toString(), paths.pluginDir().toString());
  }

  /** The deepest mount of the agent container holding {@code path}. */
  private Optional<VolumeMount> mountOf(String path) {
    return agent.getVolumeMounts().stream()
        .filter(m -> path.equals(m.getMountPath()) || path.startsWith(m.getMountPath() + "/"))
        .max(java.util.Comparator.comparingInt(m -> m.getMountPath().length()));
  }

  private Optional<String> hostPathOf(VolumeMount m) {
    return pod.getVolumes().stream().filter(v -> v.getName().equals(m.getName())).findFirst()
        .map(Volume::getHostPath).map(h -> h.getPath());
  }

  private static String subPath(VolumeMount m, String path) {
    return path.substring(m.getMountPath().length());
  }
}
