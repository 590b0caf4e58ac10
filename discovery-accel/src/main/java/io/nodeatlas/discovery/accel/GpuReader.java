package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DevNumber;
import io.nodeatlas.discovery.accel.parse.HostText;
import io.nodeatlas.discovery.accel.parse.MemorySizes;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.pci.PciFunctionReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Reads one GPU: the PCI function's common facts through {@link PciFunctionReader}
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}), then what its driver adds in the same directory.
 */
final class GpuReader {

  static final String AMDGPU = "amdgpu";
  static final String XE = "xe";
  /** NVIDIA's proprietary driver: its GPUs are the {@code gpu} source's (NVML), never ours. */
  static final String NVIDIA = "nvidia";

  /** {@code xe} names a tile's kobject {@code "tile%d"} ({@code drivers/gpu/drm/xe/xe_tile_sysfs.c}). */
  private static final Pattern TILE = Pattern.compile("^tile(0|[1-9][0-9]{0,2})$");

  private final FactReader facts;
  private final PciFunctionReader pci;

  GpuReader(FactReader facts) {
    this.facts = facts;
    this.pci = new PciFunctionReader(facts);
  }

  /** The PCI facts of a function, read once; the driver decides what else is read. */
  PciFunctionFacts pciFacts(DrmFunction function) {
    return pci.read(function.address(), Optional.of(function.deviceDir()));
  }

  /** The GPU behind {@code function}, whose PCI facts were read with {@link #pciFacts}. */
  Gpu read(DrmFunction function, PciFunctionFacts pciFacts) {
    Path dir = pci.directory(function.address(), Optional.of(function.deviceDir()));
    String driver = pciFacts.kernelDriver().orElse("");
    Optional<AmdgpuFacts> amdgpu = driver.equals(AMDGPU) ? Optional.of(amdgpu(dir)) : Optional.empty();
    OptionalLong memory = switch (driver) {
      case AMDGPU -> amdgpu.get().vramBytes();
      case XE -> xeVram(dir);
      // i915 keeps no VRAM total in sysfs (integrated parts have none; DG2 on i915 reports it only
      // through the DRM memory-region query), nouveau and radeon neither: no memory capacity.
      default -> OptionalLong.empty();
    };
    List<DrmNode> nodes = new ArrayList<>();
    for (DrmFunction.Minor minor : function.minors()) {
      nodes.add(new DrmNode(minor.name(), facts.read(minor.dir().resolve("dev"), DevNumber::parse)));
    }
    return new Gpu(pciFacts, nodes, memory, amdgpu);
  }

  /**
   * The {@code amdgpu} attributes of the PCI function ({@code Documentation/gpu/amdgpu/driver-misc.rst}:
   * "GPU Product Information" and "GPU Memory Usage Information"). Each may be absent: the FRU fields
   * exist only on boards with a FRU EEPROM, {@code unique_id} only from GFX9 on.
   */
  private AmdgpuFacts amdgpu(Path dir) {
    return new AmdgpuFacts(
        facts.read(dir.resolve("product_name"), HostText::printable),
        facts.read(dir.resolve("product_number"), HostText::printable),
        facts.read(dir.resolve("serial_number"), HostText::printable),
        facts.read(dir.resolve("unique_id"), HostText::uniqueId),
        facts.read(dir.resolve("vbios_version"), HostText::printable),
        optionalLong(facts.read(dir.resolve("mem_info_vram_total"), MemorySizes::bytes)),
        optionalLong(facts.read(dir.resolve("mem_info_vis_vram_total"), MemorySizes::bytes)));
  }

  /**
   * {@code xe}'s VRAM: one {@code tile<N>/physical_vram_size_bytes} per tile of a discrete part
   * ({@code drivers/gpu/drm/xe/xe_tile_sysfs.c}; a multi-tile part such as Data Center GPU Max has
   * one per tile), summed. A tile whose size cannot be read makes the sum wrong, so it costs the
   * whole memory fact (its warning says why); an integrated part has no such file, and neither do
   * kernels that do not create it: no memory then.
   */
  private OptionalLong xeVram(Path dir) {
    List<Long> sizes = new ArrayList<>();
    for (Path entry : facts.list(dir)) {
      if (!TILE.matcher(entry.getFileName().toString()).matches()) {
        continue;
      }
      Path file = entry.resolve("physical_vram_size_bytes");
      if (!facts.exists(file)) {
        continue;
      }
      // Present-but-zero (no VRAM on this tile) is Optional.of(empty); unusable is empty, warned.
      Optional<Optional<Long>> size = facts.read(file, t -> Optional.ofNullable(MemorySizes.bytes(t)));
      if (size.isEmpty()) {
        return OptionalLong.empty();
      }
      size.get().ifPresent(sizes::add);
    }
    if (sizes.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(MemorySizes.sum(sizes));
    } catch (IllegalArgumentException e) {
      facts.warn(dir, "xe VRAM left out: " + e.getMessage());
      return OptionalLong.empty();
    }
  }

  private static OptionalLong optionalLong(Optional<Long> v) {
    return v.map(OptionalLong::of).orElse(OptionalLong.empty());
  }
}
