package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A device of this family as Prepare sees it for sharing: the device, and what kind of share it hands out. A
 * {@code cpu} device (capacity {@code nodeatlas.io/cpu}) hands out concrete CPUs; a {@code hugepages}
 * device (capacity {@code nodeatlas.io/memory}) hands out bytes of one page size; any other shared
 * device only has its capacities accounted.
 *
 * <p>Which CPUs a {@code cpu} device may hand out is the device's own statement: its container edits
 * carry {@code NODEATLAS_CPUS=<kernel list>}, from which the source has already removed the CPUs the
 * node keeps for itself (reserved CPUs are never published). A device that does not state it (a saved
 * report of an older version) holds the online CPUs of its NUMA node, as the topology reports them.
 */
public record CpuShareDevice(Device device, Kind kind, Optional<CpuLayout> cpus, OptionalInt numaNode, OptionalLong pageSizeBytes) {

  public static final String CPU_CAPACITY = Names.ours("cpu");
  public static final String MEMORY_CAPACITY = Names.ours("memory");
  /** The env entry by which a cpu device states its allocatable CPUs, and by which a container learns its own. */
  public static final String CPUS_ENV = io.nodeatlas.discovery.cpu.CpuNumaDevices.CPUS_ENV;
  public static final String NUMA_ENV = "NODEATLAS_NUMA_NODE";

  public enum Kind { CPU, HUGEPAGES, OTHER }

  /** What the container edits need of {@code d}: its kind, NUMA node and page size, without its CPU layout. */
  static CpuShareDevice described(Device d) {
    CpuShareDevice full = of(d, null);
    return full;
  }

  public static CpuShareDevice of(Device d, Topology topology) {
    OptionalInt node = d.attribute(Names.NUMA_NODE)
        .filter(AttributeValue.IntValue.class::isInstance)
        .map(v -> OptionalInt.of((int) ((AttributeValue.IntValue) v).value()))
        .orElse(OptionalInt.empty());
    String type = d.type().orElse("");
    if (type.equals("cpu") && d.capacity().containsKey(CPU_CAPACITY)) {
      return new CpuShareDevice(d, Kind.CPU, topology == null ? Optional.empty()
          : allocatable(d, node, topology).map(set -> CpuLayout.of(set, topology)), node,
          OptionalLong.empty());
    }
    if (type.equals("hugepages") && d.capacity().containsKey(MEMORY_CAPACITY)) {
      OptionalLong page = d.attribute(Names.ours("pageSizeBytes"))
          .filter(AttributeValue.IntValue.class::isInstance)
          .map(v -> OptionalLong.of(((AttributeValue.IntValue) v).value()))
          .orElse(OptionalLong.empty());
      return new CpuShareDevice(d, Kind.HUGEPAGES, Optional.empty(), node, page);
    }
    return new CpuShareDevice(d, Kind.OTHER, Optional.empty(), node, OptionalLong.empty());
  }

  public String name() {
    return device.name();
  }

  private static Optional<CpuSet> allocatable(Device d, OptionalInt node, Topology t) {
    for (String e : d.containerEdits().env()) {
      if (e.startsWith(CPUS_ENV + "=")) {
        try {
          return Optional.of(CpuListParser.parse(e.substring(CPUS_ENV.length() + 1)));
        } catch (IllegalArgumentException bad) {
          return Optional.empty();
        }
      }
    }
    if (node.isPresent()) {
      return t.numaNodes().stream().filter(n -> n.id() == node.getAsInt()).findFirst()
          .map(Topology.NumaNodeInfo::cpus).filter(s -> !s.isEmpty());
    }
    if (t.numaNodes().size() <= 1 && !t.cpus().online().isEmpty() && t.packages().size() <= 1) {
      return Optional.of(t.cpus().online());
    }
    return Optional.empty();
  }
}
