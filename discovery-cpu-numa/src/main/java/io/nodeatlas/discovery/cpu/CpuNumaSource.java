package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.spi.AttributeDoc;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code cpu-numa} source: CPUs, caches, NUMA nodes and hugepages from sysfs and procfs, published
 * as the node topology plus {@code cpu} and {@code hugepages} devices. Stateless; every broken file
 * becomes one warning, in {@link FactReader}'s form {@code <host path>: <reason>}.
 */
public final class CpuNumaSource implements DiscoverySource {

  @Override
  public String name() {
    return CpuNumaDevices.SOURCE;
  }

  @Override
  public String description() {
    return "CPUs, caches, NUMA nodes and hugepage pools from sysfs and procfs: shared cpu and hugepages devices";
  }

  @Override
  public List<AttributeDoc> catalogue() {
    return CpuNumaDevices.CATALOGUE;
  }

  @Override
  public Availability availability(HostContext host) {
    Path cpuDir = host.fs().sys("devices/system/cpu");
    return host.fs().isDirectory(cpuDir)
        ? Availability.ok()
        : Availability.unavailable(host.fs().hostPath(cpuDir) + " is not a directory (is sysfs mounted at "
            + host.fs().sysfsRoot() + "?)");
  }

  @Override
  public DiscoveryResult discover(HostContext host) {
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(name());
    Topology topology = topology(new FactReader(host.fs(), result::warn));
    result.topology(topology);
    CpuNumaDevices.devices(topology, result::warn).forEach(result::device);
    return result.build();
  }

  /** Reads the whole topology; warnings go to {@code in}. */
  static Topology topology(FactReader in) {
    CpuTopologyReader.CpuTopology cpu = CpuTopologyReader.read(in);
    List<CacheInfo> caches = CacheReader.read(in, cpu.summary().online());
    List<NumaNodeInfo> nodes = NumaNodeReader.read(in, cpu.summary().online());
    Meminfo meminfo = MeminfoReader.read(in, in.fs().proc("meminfo"), "");
    List<HugepageSize> hugepages = HugepagesReader.read(in, meminfo);
    return new Topology(cpu.summary(), cpu.packages(), cpu.dies(), cpu.clusters(), cpu.cores(), caches, nodes, hugepages);
  }
}
