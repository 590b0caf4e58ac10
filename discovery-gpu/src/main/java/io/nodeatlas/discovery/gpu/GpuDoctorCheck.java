package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.HostFileFacts;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the GPUs we publish need on the node: every device node their container edits name
 * ({@code /dev/nvidiactl}, {@code /dev/nvidia-uvm}, {@code /dev/nvidia<minor>}) present as a character
 * device; and no NVIDIA device plugin registered with the kubelet for the same GPUs (its
 * {@code nvidia.com/gpu} and {@code nvidia.com/mig-*} resources would count them a second time).
 */
final class GpuDoctorCheck implements DoctorCheck {

  @Override
  public String name() {
    return "gpu";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    List<Device> gpus = context.devices().stream().filter(d -> d.source().equals(GpuDevices.SOURCE)).toList();
    if (gpus.isEmpty()) {
      return List.of();
    }
    List<Finding> out = new ArrayList<>();
    Set<String> nodes = new TreeSet<>();
    for (Device d : gpus) {
      for (ContainerEdits.DeviceNode n : d.containerEdits().deviceNodes()) {
        nodes.add(n.hostPath() != null ? n.hostPath() : n.path());
      }
    }
    List<String> missing = new ArrayList<>();
    for (String node : nodes) {
      if (HostFileFacts.of(context.host().fs(), node).filter(f -> f.type().equals("c")).isEmpty()) {
        missing.add(node);
      }
    }
    if (missing.isEmpty()) {
      out.add(Finding.ok("gpu.nodes", Finding.count(gpus.size(), "GPU device") + "; "
          + (nodes.isEmpty() ? "their edits name no device node" : "the " + Finding.count(nodes.size(), "device node")
          + " their edits name exist")));
    } else {
      boolean uvm = missing.stream().anyMatch(m -> m.contains("nvidia-uvm"));
      out.add(Finding.fail("gpu.nodes", "device nodes the GPUs' containers need are missing: " + String.join(", ", missing),
          uvm ? "load the UVM module and create its nodes: nvidia-modprobe -u -c=0 (or modprobe nvidia-uvm)"
              : "load the NVIDIA driver (nvidia-smi creates the nodes), then regenerate the specs"));
    }
    List<String> plugins = context.kubelet().devicePluginResources().keySet().stream()
        .filter(r -> r.equals("nvidia.com/gpu") || r.startsWith("nvidia.com/mig-")).toList();
    if (!plugins.isEmpty()) {
      out.add(Finding.warn("gpu.device-plugin", "the kubelet has a device plugin for " + String.join(", ", plugins)
          + " as well: the same GPUs are counted twice, and a pod of each could get one",
          "remove NVIDIA's device plugin from this node, or leave GPUs out of nodeatlas (--sources all,-gpu)"));
    }
    return out;
  }
}
