package io.nodeatlas.discovery.net.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.net.NicRdmaSource;
import io.nodeatlas.discovery.net.fixture.SyntheticNode;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Case 11 of issue 12, sysfs side: link, port and presence changes of a discovered node, and recovery. */
class NicRdmaHealthCheckTest {

  static final String ENO1 = "sys/devices/" + SyntheticNode.ENO1 + "/net/eno1/";
  static final String MLX5_0_PORT = "sys/devices/" + SyntheticNode.NIC0 + "/infiniband/mlx5_0/ports/1/state";

  @TempDir Path root;
  FixtureTree tree;
  List<Device> devices;
  NicRdmaHealthCheck check;

  @BeforeEach
  void discover() throws Exception {
    SyntheticNode.write(root);
    tree = FixtureTree.at(root);
    tree.value(ENO1 + "flags", "0x1003");
    HostFs fs = HostFs.of(root);
    devices = new NicRdmaSource().discover(HostContext.of(fs)).devices();
    check = (NicRdmaHealthCheck) new NicRdmaSource().healthCheck(HostContext.of(fs)).orElseThrow();
  }

  private Map<String, DeviceProblem> problems() {
    return check.check(devices).stream().collect(Collectors.toMap(DeviceProblem::device, p -> p));
  }

  @Test
  void aHealthyNodeHasNoProblemsButItsDownVfPort() {
    // NIC1's VF7 is down in the fixture: its RDMA port is DOWN.
    assertThat(problems()).containsOnlyKeys("vf-0000-9c-01-0");
    assertThat(problems().get("vf-0000-9c-01-0").reason()).isEqualTo("port-down");
  }

  @Test
  void anUpInterfaceLosingItsLinkIsUnhealthyAndRecoversWithIt() {
    tree.value(ENO1 + "carrier", "0").value(ENO1 + "operstate", "down");
    DeviceProblem p = problems().get("nic-0000-03-00-0");
    assertThat(p).isNotNull();
    assertThat(p.reason()).isEqualTo("link-down");
    assertThat(p.lost()).isFalse();
    assertThat(p.message()).contains("eno1");

    tree.value(ENO1 + "carrier", "1").value(ENO1 + "operstate", "up");
    assertThat(problems()).doesNotContainKey("nic-0000-03-00-0");
  }

  @Test
  void anAdministrativelyDownInterfaceIsNoFault() {
    tree.value(ENO1 + "flags", "0x1002").value(ENO1 + "operstate", "down").delete(ENO1 + "carrier");
    assertThat(problems()).doesNotContainKey("nic-0000-03-00-0");
  }

  @Test
  void anRdmaPortLeavingActiveIsUnhealthyAndRecovers() {
    tree.value(MLX5_0_PORT, "1: DOWN");
    assertThat(problems().get("rdma-mlx5-0")).extracting(DeviceProblem::reason).isEqualTo("port-down");
    tree.value(MLX5_0_PORT, "4: ACTIVE");
    assertThat(problems()).doesNotContainKey("rdma-mlx5-0");
  }

  @Test
  void aVanishedRdmaDeviceOrPciFunctionIsLost() {
    tree.delete("sys/class/infiniband/mlx5_1");
    DeviceProblem p = problems().get("rdma-mlx5-1");
    assertThat(p.reason()).isEqualTo("rdma-gone");
    assertThat(p.lost()).isTrue();

    tree.delete("sys/bus/pci/devices/0000:03:00.0");
    assertThat(problems().get("nic-0000-03-00-0")).extracting(DeviceProblem::reason, DeviceProblem::lost)
        .containsExactly("pci-gone", true);
  }

  @Test
  void aVfInterfaceMovedIntoAPodIsNotReported() {
    tree.delete("sys/class/net/enp26s0v0");
    assertThat(problems()).doesNotContainKey("vf-0000-1a-00-1");
  }
}
