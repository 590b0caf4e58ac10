package io.nodeatlas.discovery.doctor;

import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the node's kubelet shows of itself: its process and command line ({@code /proc/<pid>/cmdline}),
 * its configuration file (a {@code KubeletConfiguration}, {@code kubelet.config.k8s.io/v1beta1}) and the
 * device plugins it has registered ({@code <root>/device-plugins/kubelet_internal_checkpoint}).
 *
 * @param process how it was found ({@code pid 812}), empty when no kubelet process runs
 * @param rootDir its {@code --root-dir}, {@code /var/lib/kubelet} when it runs without one
 * @param reservedSystemCpus the configuration's {@code reservedSystemCPUs}, a CPU list
 * @param devicePluginResources extended resources registered by device plugins, with their device counts
 * @param problems what could not be read, one sentence each
 */
public record KubeletFacts(Optional<String> process, Optional<String> rootDir, Optional<String> configFile,
    Optional<String> reservedSystemCpus, Optional<String> cpuManagerPolicy,
    SortedMap<String, Integer> devicePluginResources, List<String> problems) {

  public static final String DEFAULT_ROOT = "/var/lib/kubelet";

  public KubeletFacts {
    devicePluginResources = new TreeMap<>(devicePluginResources);
    problems = List.copyOf(problems);
  }

  /** No kubelet on this node (or none we could see). */
  public static KubeletFacts none() {
    return new KubeletFacts(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
        new TreeMap<>(), List.of());
  }

  public boolean running() {
    return process.isPresent();
  }
}
