package io.nodeatlas.agent.testing;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Devices shaped like what the GPU source reports, for agent tests. */
public final class TestDevices {

  private TestDevices() {}

  public static Device gpu(int index) {
    return Device.builder("gpu-" + index, "gpu")
        .attribute(Device.TYPE, "gpu")
        .attribute(Names.ours("uuid"), "GPU-" + String.format("%08d", index) + "-aaaa-bbbb-cccc")
        .attribute(Names.ours("driverVersion"), AttributeValue.version("580.65.6"))
        .attribute(Names.NUMA_NODE, index % 2)
        .attribute(Names.PCI_BUS_ID, String.format("0000:%02x:00.0", 0x10 + index % 200))
        .capacity(Names.ours("memory"), Quantity.parse("80Gi"))
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia" + index, 195, index))
            .env("NODEATLAS_GPU_" + index + "=1")
            .build())
        .build();
  }

  /**
   * A CPU pool that claims share (allowMultipleAllocations, KEP-5075): 64 CPUs, a request takes 1 by
   * default, from 1 to 64 in steps of 1.
   */
  public static Device sharedCpus(int node) {
    return Device.builder("cpu-numa" + node, "cpu-numa")
        .attribute(Device.TYPE, "cpu")
        .attribute(Names.NUMA_NODE, node)
        .allowMultipleAllocations(true)
        .capacity(Names.ours("cpu"), Quantity.of(64),
            RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(64), Quantity.of(1)))
        .containerEdits(ContainerEdits.builder().env("NODEATLAS_CPUS=" + (node * 64) + "-" + (node * 64 + 63))
            .env("NODEATLAS_NUMA_NODE=" + node).build())
        .build();
  }

  public static List<Device> gpus(int count) {
    List<Device> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(gpu(i));
    }
    return out;
  }

  public static NodeReport report(List<Device> devices) {
    return new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("node-a", "6.8.0", "/"), Topology.EMPTY, devices,
        List.of(), Map.of("gpu", io.nodeatlas.discovery.report.SourceStatus.OK));
  }
}
