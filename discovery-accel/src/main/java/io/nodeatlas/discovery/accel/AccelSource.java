package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DevNumber;
import io.nodeatlas.discovery.accel.parse.PciIdsDatabase.DeviceKey;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code accel} source: GPUs on any DRM driver of a PCI function (AMD, Intel, and others such as
 * {@code nouveau} or {@code ast}), read from sysfs, published as {@code gpu} devices. Functions bound
 * to NVIDIA's proprietary {@code nvidia} driver are left to the {@code gpu} source, which describes
 * them through NVML, so running both never publishes a GPU twice.
 *
 * <p>A function with a primary node but no render node is a display adapter, not a GPU to give to a
 * workload: the BMC graphics of nearly every server ({@code ast}, {@code mgag200}) and emulated VGA
 * ({@code bochs}, {@code cirrus-qemu}) register no render node, because their drivers cannot render
 * (render nodes exist for "GPU clients" doing rendering and GPGPU, kernel
 * {@code Documentation/gpu/drm-uapi.rst}, "Render nodes"). Publishing them as {@code gpu} would let a
 * claim for "any GPU" be given a BMC's framebuffer, so they are left out.
 *
 * <p>Stateless; every broken file costs its fact and one warning.
 */
public final class AccelSource implements DiscoverySource {

  @Override
  public String name() {
    return AccelDevices.SOURCE;
  }

  @Override
  public String description() {
    return "AMD, Intel and other DRM GPUs from /sys/class/drm: PCI facts, VRAM, /dev/dri and /dev/kfd nodes";
  }

  @Override
  public List<AttributeDoc> catalogue() {
    return AccelDevices.catalogue();
  }

  @Override
  public Availability availability(HostContext host) {
    Path drm = DrmScanner.classDir(host.fs());
    return host.fs().isDirectory(drm)
        ? Availability.ok()
        : Availability.unavailable(host.fs().hostPath(drm) + " does not exist (no DRM driver loaded, or sysfs is not at "
            + host.fs().sysfsRoot() + ")");
  }

  @Override
  public DiscoveryResult discover(HostContext host) {
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(name());
    HostFs fs = host.fs();
    FactReader facts = new FactReader(fs, result::warn);
    GpuReader reader = new GpuReader(facts);
    List<Gpu> gpus = new ArrayList<>();
    for (DrmFunction function : new DrmScanner(facts).scan()) {
      if (!function.hasRenderNode()) {
        continue; // display only: a BMC's or a VM's framebuffer, not something to compute on
      }
      PciFunctionFacts pci = reader.pciFacts(function);
      if (pci.kernelDriver().filter(GpuReader.NVIDIA::equals).isPresent()) {
        continue; // the gpu source's
      }
      gpus.add(reader.read(function, pci));
    }
    Set<DeviceKey> unnamed = new TreeSet<>();
    for (Gpu gpu : gpus) {
      if (gpu.amdgpu().flatMap(AmdgpuFacts::productName).isEmpty()) {
        AccelDevices.pciIdsKey(gpu).ifPresent(unnamed::add);
      }
    }
    Map<DeviceKey, String> names = new PciIdsReader(facts).names(unnamed);
    boolean anyAmdgpu = gpus.stream().anyMatch(g -> g.driver().filter(GpuReader.AMDGPU::equals).isPresent());
    Optional<DevNumber> kfd = anyAmdgpu ? new KfdReader(fs, result::warn).read() : Optional.empty();
    for (Gpu gpu : gpus) {
      AccelDevices.device(gpu, names, kfd, result::warn).ifPresent(result::device);
    }
    return result.build();
  }
}
