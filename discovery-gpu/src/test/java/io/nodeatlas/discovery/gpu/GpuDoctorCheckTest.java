package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.KubeletFacts;
import io.nodeatlas.discovery.doctor.NodeLayout;
import io.nodeatlas.discovery.doctor.Verdict;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GPU family's doctor check, on device nodes of this machine's /dev (null and zero stand in for the GPU's). */
class GpuDoctorCheckTest {

  @TempDir Path root;

  private List<Finding> check(List<String> nodes, TreeMap<String, Integer> plugins) {
    List<ContainerEdits.DeviceNode> dn = nodes.stream()
        .map(p -> new ContainerEdits.DeviceNode(p, null, null, null, null, null, null, null, null)).toList();
    Device gpu = Device.builder("gpu-0", GpuDevices.SOURCE)
        .containerEdits(new ContainerEdits(List.of(), dn, List.of(), List.of(), List.of())).build();
    KubeletFacts kubelet = new KubeletFacts(Optional.of("pid 1"), Optional.of("/var/lib/kubelet"), Optional.empty(),
        Optional.empty(), Optional.empty(), plugins, List.of());
    HostFs fs = HostFs.builder(root).devRoot(Path.of("/dev")).build();
    DoctorContext ctx = new DoctorContext(HostContext.of(fs),
        new NodeLayout("nodeatlas.io", "/var/run/cdi", "/var/lib/nodeatlas", "/var/lib/kubelet", "/h", Optional.empty()),
        List.of(gpu), kubelet);
    return new GpuDoctorCheck().run(ctx);
  }

  @Test
  void presentNodesAreOk() {
    assertThat(check(List.of("/dev/null", "/dev/zero"), new TreeMap<>())).singleElement()
        .satisfies(f -> assertThat(f.verdict()).as(f.toString()).isEqualTo(Verdict.OK));
  }

  @Test
  void aMissingUvmNodeSaysHowToCreateIt() {
    assertThat(check(List.of("/dev/null", "/dev/nvidia-uvm-missing-here"), new TreeMap<>())).singleElement().satisfies(f -> {
      assertThat(f.verdict()).isEqualTo(Verdict.FAIL);
      assertThat(f.saw()).contains("/dev/nvidia-uvm-missing-here");
      assertThat(f.fix()).contains("nvidia-modprobe -u -c=0");
    });
  }

  @Test
  void nvidiasDevicePluginBesideUsIsCountingTwice() {
    TreeMap<String, Integer> plugins = new TreeMap<>();
    plugins.put("nvidia.com/gpu", 8);
    plugins.put("example.com/fpga", 1);
    assertThat(check(List.of("/dev/null"), plugins)).filteredOn(f -> f.verdict() == Verdict.WARN).singleElement()
        .satisfies(f -> {
          assertThat(f.check()).isEqualTo("gpu.device-plugin");
          assertThat(f.saw()).contains("nvidia.com/gpu").doesNotContain("fpga");
        });
  }
}
