package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.topology.CpuSet;
import java.math.BigDecimal;
import java.util.List;
import java.util.SortedMap;

/**
 * The shares of one {@code cpu} or {@code hugepages} device (KEP-5075 consumable capacity): a CPU
 * count is a whole number of at least 1 and gets concrete CPUs from {@link CpuAllocator}, placement
 * version 1 being their kernel list; hugepage bytes are a positive multiple of the page size and need
 * no placement.
 */
final class CpuDevicePlacer implements DevicePlacer {

  /** The placement version whose value is a CPU list in kernel syntax. */
  static final int CPU_LIST = 1;

  private final CpuShareDevice device;
  private final CpuAllocator allocator = new CpuAllocator();

  CpuDevicePlacer(CpuShareDevice device) {
    this.device = device;
  }

  @Override
  public String checkAmounts(SortedMap<String, BigDecimal> consumed) {
    if (device.kind() == CpuShareDevice.Kind.CPU) {
      BigDecimal n = consumed.get(CpuShareDevice.CPU_CAPACITY);
      if (n == null) {
        return "the allocation consumes no " + CpuShareDevice.CPU_CAPACITY;
      }
      if (n.stripTrailingZeros().scale() > 0) {
        return "consumedCapacity " + CpuShareDevice.CPU_CAPACITY + " = " + plain(n) + " is not a whole number of CPUs";
      }
      if (n.signum() <= 0) {
        return "consumedCapacity " + CpuShareDevice.CPU_CAPACITY + " = " + plain(n) + ": a share takes at least 1 CPU";
      }
    }
    if (device.kind() == CpuShareDevice.Kind.HUGEPAGES) {
      BigDecimal bytes = consumed.get(CpuShareDevice.MEMORY_CAPACITY);
      if (bytes == null || bytes.signum() <= 0) {
        return "a hugepage share takes at least one page, the allocation consumes " + (bytes == null ? "none" : plain(bytes));
      }
      long page = device.pageSizeBytes().orElse(0);
      if (bytes.stripTrailingZeros().scale() > 0 || (page > 0 && bytes.remainder(BigDecimal.valueOf(page)).signum() != 0)) {
        return "consumedCapacity " + CpuShareDevice.MEMORY_CAPACITY + " = " + plain(bytes) + " is not a whole number of "
            + page + "-byte pages";
      }
    }
    return null;
  }

  @Override
  public Decision place(Share share, List<Share> others) {
    if (device.kind() != CpuShareDevice.Kind.CPU) {
      return Decision.of(Placement.NONE);
    }
    CpuLayout layout = device.cpus().orElse(null);
    if (layout == null) {
      return Decision.refused("the node does not say which CPUs the device holds (no " + CpuShareDevice.CPUS_ENV
          + " on the device, no NUMA node CPUs in the topology)");
    }
    CpuSet taken = CpuSet.EMPTY;
    for (Share h : others) {
      taken = taken.union(cpus(h.placement()));
    }
    BigDecimal count = share.consumed(CpuShareDevice.CPU_CAPACITY);
    if (count.compareTo(BigDecimal.valueOf(layout.allocatable().size())) > 0) {
      return Decision.refused("the share no longer fits: it takes " + plain(count) + " CPUs, and the device has "
          + layout.allocatable().size() + " allocatable");
    }
    CpuAllocator.Choice c = allocator.choose(layout, taken, count.intValueExact());
    if (!c.chosen()) {
      return Decision.refused("the share no longer fits: " + c.refusal());
    }
    return Decision.of(new Placement(CPU_LIST, c.cpus().toString()));
  }

  @Override
  public String recheck(Share share) {
    if (device.kind() != CpuShareDevice.Kind.CPU) {
      return null;
    }
    if (!readable(share.placement())) {
      return "the recorded placement (version " + share.placement().version() + ") is not a CPU list this version reads";
    }
    CpuSet allocatable = device.cpus().map(CpuLayout::allocatable).orElse(CpuSet.EMPTY);
    CpuSet mine = cpus(share.placement());
    CpuSet gone = mine.minus(allocatable);
    if (!gone.isEmpty()) {
      return "the share no longer fits: CPUs " + gone + " of its CPUs " + mine + " are no longer allocatable on the device";
    }
    return null;
  }

  private static boolean readable(Placement p) {
    if (p.version() != CPU_LIST) {
      return false;
    }
    try {
      CpuListParser.parse(p.value());
      return true;
    } catch (IllegalArgumentException bad) {
      return false;
    }
  }

  /** The CPUs a placement names; none for another version or a value that is no CPU list. */
  static CpuSet cpus(Placement p) {
    if (p.version() != CPU_LIST) {
      return CpuSet.EMPTY;
    }
    try {
      return CpuListParser.parse(p.value());
    } catch (IllegalArgumentException bad) {
      return CpuSet.EMPTY;
    }
  }

  /** Decimal text of {@code v}; scientific beyond 40 digits, so a hostile {@code 9e999999999} stays short. */
  static String plain(BigDecimal v) {
    BigDecimal s = v.stripTrailingZeros();
    return s.precision() - s.scale() > 40 || s.scale() > 40 ? s.toString() : s.toPlainString();
  }
}
