package io.nodeatlas.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.claims.PreparedClaim;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node of the share tests (two cpu devices with CPUs 0, 16, 8 and 24 reserved, two 2 MiB hugepage
 * pools of 64 pages, one exclusive device) and what must hold of any set of prepared claims on it.
 */
public final class ShareInvariants {

  private ShareInvariants() {}

  public static List<Device> devices() {
    return List.of(ShareFixtures.cpuDevice(0, "1-7,17-23"), ShareFixtures.cpuDevice(1, "9-15,25-31"),
        ShareFixtures.hugepages(0, 64), ShareFixtures.hugepages(1, 64),
        Device.builder("nic-0", "nic-rdma").attribute(Device.TYPE, "nic").build());
  }

  /** No CPU in two shares, none outside its device's allocatable set, no capacity exceeded. */
  public static void check(Collection<PreparedClaim> claims) {
    Map<String, Device> byName = new HashMap<>();
    devices().forEach(d -> byName.put(d.name(), d));
    Map<Integer, String> owner = new HashMap<>();
    Map<String, BigDecimal> used = new HashMap<>();
    for (PreparedClaim c : claims) {
      for (PreparedDevice d : c.devices()) {
        if (!d.isShare()) {
          continue;
        }
        Device device = byName.get(d.device());
        d.consumedCapacity().forEach((k, v) -> used.merge(d.device() + "/" + k, new BigDecimal(v), BigDecimal::add));
        if (d.placementOrNone().empty()) {
          continue;
        }
        CpuSet cpus = CpuListParser.parse(d.placementOrNone().value());
        assertThat(cpus.size()).isEqualTo(new BigDecimal(d.consumedCapacity().get("nodeatlas.io/cpu")).intValueExact());
        String allocatable = device.containerEdits().env().stream().filter(e -> e.startsWith("NODEATLAS_CPUS="))
            .findFirst().orElseThrow().substring("NODEATLAS_CPUS=".length());
        assertThat(CpuListParser.parse(allocatable).containsAll(cpus)).as("%s within %s", cpus, allocatable).isTrue();
        cpus.stream().forEach(cpu -> {
          String before = owner.put(cpu, c.claim().uid() + "/" + d.shareId());
          assertThat(before).as("CPU %d held by two shares", cpu).isNull();
        });
      }
    }
    used.forEach((key, amount) -> {
      String[] parts = key.split("/", 2);
      BigDecimal capacity = byName.get(parts[0]).capacity().get(parts[1]).toBigDecimal();
      assertThat(amount).as("%s used", key).isLessThanOrEqualTo(capacity);
    });
  }
}
