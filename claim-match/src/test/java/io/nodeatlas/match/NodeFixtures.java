package io.nodeatlas.match;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * The devices of the synthetic HGX-like node of this project's fixtures, as the discovery modules name
 * them: 8 H100 GPUs, 3 ConnectX-7 RDMA functions (2 RoCE PFs, 1 IB HCA) with 8 RoCE VFs under each PF,
 * one CPU device per NUMA node with {@code nodeatlas.io/cpu} capacity, and one hugepages device per NUMA
 * node and page size.
 */
public final class NodeFixtures {

  public static final String TYPE = Names.ours("type");

  /** GPU index → PCI bus id and PCIe root. */
  private static final String[][] GPUS = {
      {"0000:18:00.0", "pci0000:15"}, {"0000:19:00.0", "pci0000:15"},
      {"0000:3a:00.0", "pci0000:37"}, {"0000:3b:00.0", "pci0000:37"},
      {"0000:9a:00.0", "pci0000:97"}, {"0000:9b:00.0", "pci0000:97"},
      {"0000:ba:00.0", "pci0000:b7"}, {"0000:bb:00.0", "pci0000:b7"},
  };

  /** DeviceClasses for each device type, selecting by {@code nodeatlas.io/type}. */
  public static final String DEVICE_CLASSES = """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: gpu.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.driver == "nodeatlas.io" && device.attributes["nodeatlas.io"].type == "gpu"'}
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: rdma.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "rdma"'}
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: cpu.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "cpu"'}
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: hugepages.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "hugepages"'}
      """;

  private NodeFixtures() {}

  public static List<Device> hgxNode() {
    List<Device> out = new ArrayList<>();
    for (int i = 0; i < GPUS.length; i++) {
      out.add(gpu(i));
    }
    out.add(rdma("mlx5_0", "0000:1a:00.0", "pci0000:15", 0, "ethernet", false, "enp26s0np0"));
    out.add(rdma("mlx5_1", "0000:3c:00.0", "pci0000:37", 0, "infiniband", false, "ibp60s0"));
    out.add(rdma("mlx5_2", "0000:9c:00.0", "pci0000:97", 1, "ethernet", false, "enp156s0np0"));
    for (int j = 0; j < 8; j++) {
      String fn = j < 7 ? "00." + (j + 1) : "01.0";
      out.add(rdma("mlx5_" + (3 + j), "0000:1a:" + fn, "pci0000:15", 0, "ethernet", true, "enp26s0v" + j));
      out.add(rdma("mlx5_" + (11 + j), "0000:9c:" + fn, "pci0000:97", 1, "ethernet", true, "enp156s0v" + j));
    }
    for (int node = 0; node < 2; node++) {
      out.add(Device.builder("cpu-numa" + node, "cpu-numa")
          .attribute(TYPE, "cpu")
          .attribute(Names.NUMA_NODE, node)
          .attribute(Names.ours("socket"), node)
          .attribute(Names.ours("cpus"), node == 0 ? "0-31,64-95" : "32-63,96-127")
          .attribute(Names.ours("smtEnabled"), true)
          .capacity(Names.ours("cpu"), 64)
          .allowMultipleAllocations(true)
          .build());
      out.add(hugepages(node, 2L << 20, 4096, "2mi"));
      out.add(hugepages(node, 1L << 30, 16, "1gi"));
    }
    return List.copyOf(out);
  }

  static Device gpu(int index) {
    return Device.builder("gpu-" + index, "gpu")
        .attribute(TYPE, "gpu")
        .attribute(Names.ours("productName"), "NVIDIA H100 80GB HBM3")
        .attribute(Names.ours("architecture"), "hopper")
        .attribute(Names.ours("cudaComputeCapability"), AttributeValue.version("9.0.0"))
        .attribute(Names.ours("driverVersion"), AttributeValue.version("550.54.15"))
        .attribute(Names.ours("index"), index)
        .attribute(Names.NUMA_NODE, index < 4 ? 0 : 1)
        .attribute(Names.PCIE_ROOT, GPUS[index][1])
        .attribute(Names.PCI_BUS_ID, GPUS[index][0])
        .capacity(Names.ours("memory"), 85_520_809_984L)
        .build();
  }

  static Device rdma(String ibdev, String bdf, String root, int numa, String linkLayer, boolean vf, String netdev) {
    return Device.builder("rdma-" + ibdev.replace('_', '-'), "nic-rdma")
        .attribute(TYPE, "rdma")
        .attribute(Names.ours("ibdev"), ibdev)
        .attribute(Names.ours("netdev"), netdev)
        .attribute(Names.ours("linkLayer"), linkLayer)
        .attribute(Names.ours("productName"), "ConnectX-7")
        .attribute(Names.ours("isSriovVf"), vf)
        .attribute(Names.ours("firmwareVersion"), AttributeValue.version("28.39.1002"))
        .attribute(Names.NUMA_NODE, numa)
        .attribute(Names.PCIE_ROOT, root)
        .attribute(Names.PCI_BUS_ID, bdf)
        .capacity(Names.ours("linkSpeed"), io.nodeatlas.discovery.model.Quantity.parse("400G"))
        .build();
  }

  static Device hugepages(int node, long pageSize, long pages, String label) {
    return Device.builder("hugepages-" + label + "-numa" + node, "cpu-numa")
        .attribute(TYPE, "hugepages")
        .attribute(Names.NUMA_NODE, node)
        .capacity(Names.ours("pageSize"), pageSize)
        .capacity(Names.ours("memory"), pageSize * pages)
        .allowMultipleAllocations(true)
        .build();
  }
}
