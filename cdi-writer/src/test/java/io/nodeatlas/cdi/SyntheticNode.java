package io.nodeatlas.cdi;

import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.ContainerEdits.Mount;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * The devices of the synthetic HGX-like node of this project's fixtures, as the
 * discovery sources describe them: 8 GPUs with {@code /dev/nvidiaN} (195:N) plus the control nodes and
 * driver mounts; the RDMA devices with {@code /dev/infiniband/uverbsN} + {@code rdma_cm} (10:58), and
 * {@code umadN} for the IB HCA; the RoCE PFs and VFs as NICs with {@code netDevices}; the 2M and
 * 1G hugepage pools per NUMA node as hugetlbfs mounts; NUMA nodes without edits.
 */
final class SyntheticNode {

  private SyntheticNode() {}

  static final String DRIVER = "/usr/lib/x86_64-linux-gnu";

  static List<Device> devices() {
    List<Device> out = new ArrayList<>();
    String[] gpuBdfs = {"0000:18:00.0", "0000:19:00.0", "0000:3a:00.0", "0000:3b:00.0",
        "0000:9a:00.0", "0000:9b:00.0", "0000:ba:00.0", "0000:bb:00.0"};
    for (int i = 0; i < gpuBdfs.length; i++) {
      ContainerEdits edits = ContainerEdits.builder()
          .deviceNode(DeviceNode.charDevice("/dev/nvidia" + i, 195, i).withPermissions("rw"))
          .deviceNode(DeviceNode.charDevice("/dev/nvidiactl", 195, 255).withPermissions("rw"))
          .deviceNode(DeviceNode.charDevice("/dev/nvidia-uvm", 510, 0).withPermissions("rw"))
          .mount(Mount.readOnlyBind(DRIVER + "/libcuda.so.550.54.15", DRIVER + "/libcuda.so.550.54.15"))
          .mount(Mount.readOnlyBind(DRIVER + "/libnvidia-ml.so.550.54.15", DRIVER + "/libnvidia-ml.so.550.54.15"))
          .mount(Mount.readOnlyBind("/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"))
          .build();
      out.add(Device.builder("gpu-" + i, "gpu")
          .attribute(Device.TYPE, "gpu")
          .attribute(Names.PCI_BUS_ID, gpuBdfs[i])
          .attribute(Names.NUMA_NODE, i < 4 ? 0 : 1)
          .containerEdits(edits)
          .build());
    }
    // ibdev, uverbs index, umad index (IB only), netdev (null for IB), PCI BDF, type
    Object[][] rdma = {
        {"mlx5_0", 0, null, "enp26s0np0", "0000:1a:00.0"},
        {"mlx5_1", 1, 1, null, "0000:3c:00.0"},
        {"mlx5_2", 2, null, "enp156s0np0", "0000:9c:00.0"},
        {"mlx5_3", 3, null, "enp26s0v0", "0000:1a:00.1"},
        {"mlx5_11", 11, null, "enp156s0v0", "0000:9c:00.1"},
    };
    for (Object[] r : rdma) {
      String ibdev = (String) r[0];
      int uverbs = (Integer) r[1];
      ContainerEdits.Builder edits = ContainerEdits.builder()
          .env("NODEATLAS_RDMA_DEVICE=" + ibdev)
          .deviceNode(DeviceNode.charDevice("/dev/infiniband/uverbs" + uverbs, 231, 192 + uverbs).withPermissions("rw"));
      if (r[2] != null) {
        int umad = (Integer) r[2];
        edits.deviceNode(DeviceNode.charDevice("/dev/infiniband/umad" + umad, 231, umad).withPermissions("rw"));
      }
      edits.deviceNode(DeviceNode.charDevice("/dev/infiniband/rdma_cm", 10, 58).withPermissions("rw"));
      out.add(Device.builder("rdma-" + Names.toLabelFragment(ibdev), "nic-rdma")
          .attribute(Device.TYPE, "rdma")
          .attribute(Names.PCI_BUS_ID, (String) r[4])
          .attribute(Names.ours("ibdev"), ibdev)
          .containerEdits(edits.build())
          .build());
    }
    String[][] nics = {
        {"enp26s0np0", "nic", "0000:1a:00.0"},
        {"enp156s0np0", "nic", "0000:9c:00.0"},
        {"enp26s0v0", "vf", "0000:1a:00.1"},
        {"enp26s0v1", "vf", "0000:1a:00.2"},
        {"enp156s0v7", "vf", "0000:9c:01.0"},
    };
    for (String[] n : nics) {
      out.add(Device.builder("nic-" + Names.toLabelFragment(n[0]), "nic-rdma")
          .attribute(Device.TYPE, n[1])
          .attribute(Names.PCI_BUS_ID, n[2])
          .attribute(Names.ours("interface"), n[0])
          .containerEdits(ContainerEdits.builder()
              .netDevice(new ContainerEdits.NetDevice(n[0], "net-" + n[0].substring(n[0].length() - 2)))
              .build())
          .build());
    }
    // eno1: a NIC the agent does not hand to containers (no edits => no CDI device).
    out.add(Device.builder("nic-eno1", "nic-rdma").attribute(Device.TYPE, "nic").build());
    for (int node = 0; node < 2; node++) {
      for (String[] size : new String[][] {{"2mi", "2M", "2Mi"}, {"1gi", "1024M", "1Gi"}}) {
        out.add(Device.builder("hugepages-" + size[0] + "-numa" + node, "cpu-numa")
            .attribute(Device.TYPE, "hugepages")
            .attribute(Names.NUMA_NODE, node)
            .containerEdits(ContainerEdits.builder()
                .env("NODEATLAS_HUGEPAGES_" + size[2].toUpperCase(java.util.Locale.ROOT) + "=/dev/hugepages-" + size[2])
                .mount(new Mount("nodev", "/dev/hugepages-" + size[2], "hugetlbfs",
                    List.of("rw", "nosuid", "nodev", "pagesize=" + size[1])))
                .build())
            .build());
      }
      out.add(Device.builder("numa-" + node, "cpu-numa").attribute(Device.TYPE, "numa").attribute(Names.NUMA_NODE, node).build());
    }
    return out;
  }
}
