package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.util.List;
import java.util.Optional;

/**
 * The claim-time side of the CPU, NUMA and hugepage family ({@link SharePlacer}): CPU shares get
 * concrete CPUs, hugepage shares a bounded hugetlbfs mount, and a claim's containers the environment
 * and the {@code createRuntime} OCI hook ({@code discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c}) that enforce them.
 */
public final class CpuSharePlacer implements SharePlacer {

  private final CpuShareEdits edits;

  public CpuSharePlacer(Settings settings) {
    this.edits = new CpuShareEdits(settings.hookPath());
  }

  @Override
  public Optional<DevicePlacer> forDevice(Device device, Topology topology) {
    CpuShareDevice d = CpuShareDevice.of(device, topology);
    return d.kind() == CpuShareDevice.Kind.OTHER ? Optional.empty() : Optional.of(new CpuDevicePlacer(d));
  }

  @Override
  public List<Device> containerEdits(List<ClaimDevice> claim) {
    return edits.edit(claim);
  }

  /** The CPUs of a CPU share's placement. */
  static CpuSet cpus(Placement p) {
    return CpuDevicePlacer.cpus(p);
  }
}
