package io.nodeatlas.discovery.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet as /proc, its config file and the device manager's checkpoint show it. */
class KubeletFactsReaderTest {

  @TempDir Path root;

  private KubeletFacts read() {
    return KubeletFactsReader.read(HostFs.of(root), "/var/lib/kubelet");
  }

  private FixtureTree cmdline(String pid, String... args) {
    return FixtureTree.at(root).bytes("proc/" + pid + "/cmdline", (String.join("\0", args) + "\0").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void noKubeletProcessIsNone() {
    cmdline("1", "/sbin/init");
    cmdline("77", "/usr/bin/kubelet-wrapper", "--root-dir=/x");
    assertThat(read().running()).isFalse();
  }

  @Test
  void flagsInBothSpellingsTheLastWins() {
    cmdline("4242", "/usr/bin/kubelet", "--root-dir", "/a", "--root-dir=/data/kubelet", "--config", "/etc/kubernetes/kubelet.yaml");
    FixtureTree.at(root).file("etc/kubernetes/kubelet.yaml",
        "kind: KubeletConfiguration\nreservedSystemCPUs: \"0-1,64-65\"\ncpuManagerPolicy: static\n");
    KubeletFacts k = read();
    assertThat(k.process()).contains("pid 4242");
    assertThat(k.rootDir()).contains("/data/kubelet");
    assertThat(k.reservedSystemCpus()).contains("0-1,64-65");
    assertThat(k.cpuManagerPolicy()).contains("static");
    assertThat(k.problems()).isEmpty();
  }

  @Test
  void theDefaultRootAndTheDevicePluginsCheckpoint() {
    cmdline("9", "kubelet");
    FixtureTree.at(root).file("var/lib/kubelet/device-plugins/kubelet_internal_checkpoint",
        "{\"Data\":{\"PodDeviceEntries\":null,\"RegisteredDevices\":{\"nvidia.com/gpu\":[\"GPU-a\",\"GPU-b\"]}},\"Checksum\":1}");
    KubeletFacts k = read();
    assertThat(k.rootDir()).contains("/var/lib/kubelet");
    assertThat(k.devicePluginResources()).containsEntry("nvidia.com/gpu", 2);
  }

  @Test
  void hostileFilesAreProblemsNotExceptions() {
    cmdline("5", "/usr/bin/kubelet", "--config=/etc/k.yaml");
    FixtureTree.at(root).file("etc/k.yaml", "a:\n" + "  [".repeat(2000) + "\n")
        .file("var/lib/kubelet/device-plugins/kubelet_internal_checkpoint", "[".repeat(100_000));
    KubeletFacts k = read();
    assertThat(k.running()).isTrue();
    assertThat(k.problems()).hasSize(2).allMatch(p -> p.contains("cannot be read"));
  }

  @Test
  void aMissingConfigIsAProblem() {
    cmdline("5", "/usr/bin/kubelet", "--config=/etc/none.yaml");
    assertThat(read().problems()).containsExactly("the kubelet's config file /etc/none.yaml does not exist");
  }
}
