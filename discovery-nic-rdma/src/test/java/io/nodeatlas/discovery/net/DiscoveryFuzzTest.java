package io.nodeatlas.discovery.net;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.net.fixture.SyntheticNode;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Arbitrary bytes in any file the readers parse cost at most warnings: discovery never throws, and
 * the RDMA devices and VFs are still published (each device's name and limits are checked by the
 * {@link Device} constructor).
 */
class DiscoveryFuzzTest {

  private static final String NIC0 = "sys/devices/" + SyntheticNode.NIC0 + "/";
  private static final String PORT = NIC0 + "infiniband/mlx5_0/ports/1/";
  private static final String VF = "sys/devices/" + SyntheticNode.SW0 + "/0000:17:02.0/0000:1a:00.1/";

  private static final List<String> PARSED_FILES = List.of(
      PORT + "state", PORT + "phys_state", PORT + "link_layer", PORT + "rate", PORT + "lid", PORT + "gids/0",
      PORT + "gid_attrs/types/0", PORT + "gid_attrs/ndevs/0", NIC0 + "infiniband/mlx5_0/node_type",
      NIC0 + "infiniband/mlx5_0/node_guid", NIC0 + "infiniband/mlx5_0/fw_ver", NIC0 + "infiniband/mlx5_0/board_id",
      NIC0 + "infiniband_verbs/uverbs0/dev", NIC0 + "infiniband_verbs/uverbs0/ibdev", NIC0 + "infiniband_mad/umad0/port",
      NIC0 + "vendor", NIC0 + "class", NIC0 + "numa_node", NIC0 + "sriov_totalvfs", NIC0 + "sriov_numvfs",
      NIC0 + "current_link_speed", NIC0 + "current_link_width", NIC0 + "net/enp26s0np0/address",
      NIC0 + "net/enp26s0np0/mtu", NIC0 + "net/enp26s0np0/speed", NIC0 + "net/enp26s0np0/operstate",
      NIC0 + "net/enp26s0np0/type", NIC0 + "net/enp26s0np0/phys_port_name", VF + "net/enp26s0v0/dev_port",
      "sys/devices/virtual/misc/rdma_cm/dev", "sys/module/ib_core/parameters/netns_mode");

  private static Path fuzzRoot;

  @FuzzTest
  void anyBytesInAnyFileCostAtMostWarnings(FuzzedDataProvider data) throws IOException {
    if (fuzzRoot == null) {
      fuzzRoot = Files.createTempDirectory("nic-rdma-fuzz");
      SyntheticNode.write(fuzzRoot);
    }
    Path path = fuzzRoot.resolve(PARSED_FILES.get(data.consumeInt(0, PARSED_FILES.size() - 1)));
    byte[] original = Files.readAllBytes(path);
    try {
      Files.write(path, data.consumeRemainingAsBytes());
      DiscoveryResult r = new NicRdmaSource().discover(HostContext.of(HostFs.of(fuzzRoot)));
      assertThat(r.devices()).extracting(Device::name).contains("rdma-mlx5-0", "rdma-mlx5-1", "vf-0000-1a-00-1");
      assertThat(r.devices()).hasSize(20);
    } catch (io.nodeatlas.discovery.spi.DiscoveryException e) {
      throw new AssertionError("discovery failed as a whole", e);
    } finally {
      Files.write(path, original);
    }
  }
}
