package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Case 11 of issue 12, hugepages: a pool shrinking below what its device published, and growing back. */
class HugepagesHealthCheckTest {

  static final String NODE1_1G = "sys/devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages";

  @TempDir Path root;

  @Test
  void aShrunkPoolIsUnhealthyUntilItIsBack() {
    FixtureTree tree = SyntheticNode.write(root);
    HostContext host = HostContext.of(HostFs.of(root));
    List<Device> devices = Discover.run(host).devices();
    HealthCheck check = new CpuNumaSource().healthCheck(host).orElseThrow();
    assertThat(check.check(devices)).isEmpty();

    tree.value(NODE1_1G, 8); // 16 published
    assertThat(check.check(devices)).singleElement().satisfies(p -> {
      assertThat(p.device()).isEqualTo("hugepages-1gi-numa1");
      assertThat(p.reason()).isEqualTo("hugepages-shrunk");
      assertThat(p.lost()).isFalse();
      assertThat(p.message()).contains("8 pages");
    });

    tree.value(NODE1_1G, 16);
    assertThat(check.check(devices)).isEmpty();

    tree.value(NODE1_1G, "garbage");
    assertThat(check.check(devices)).extracting(DeviceProblem::device).containsExactly("hugepages-1gi-numa1");
  }
}
