package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.spi.DiscoverySources;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Which sources to run and their settings; shared by {@code discover}, {@code cdi generate},
 * {@code match} and {@code run}. Source settings travel to the pluggable sources as
 * {@link SourceOptions} keyed {@code <source>.<setting>}.
 */
public final class DiscoveryOptions {

  @Mixin HostOptions host = new HostOptions();

  @Option(names = "--sources", paramLabel = "LIST", defaultValue = "${env:NODEATLAS_SOURCES:-all}",
      description = "Sources to run: all, or a comma list of cpu-numa, gpu, nic-rdma; -NAME drops one "
          + "(default: ${DEFAULT-VALUE}; env NODEATLAS_SOURCES).")
  String sources;

  @Option(names = "--nvidia-driver-root", paramLabel = "DIR", defaultValue = "${env:NVIDIA_DRIVER_ROOT}",
      description = "Root of the NVIDIA driver installation (default: the host root; env NVIDIA_DRIVER_ROOT).")
  Path nvidiaDriverRoot;

  @Option(names = {"--nvml-library", "--nvml-library-path"}, paramLabel = "FILE",
      defaultValue = "${env:NODEATLAS_NVML_LIBRARY}",
      description = "Load NVML from this file instead of libnvidia-ml.so.1 (env NODEATLAS_NVML_LIBRARY).")
  Path nvmlLibrary;

  @Option(names = "--include-virtual-nics", defaultValue = "${env:NODEATLAS_INCLUDE_VIRTUAL_NICS:-false}",
      description = "Also report virtual interfaces (lo, bridges, veth, VLANs) (env NODEATLAS_INCLUDE_VIRTUAL_NICS).")
  boolean includeVirtualNics;

  @Option(names = "--rdma-mad-devices", defaultValue = "${env:NODEATLAS_RDMA_MAD_DEVICES:-false}",
      description = "Give containers the RDMA MAD devices (umadN, issmN) too (env NODEATLAS_RDMA_MAD_DEVICES).")
  boolean rdmaMadDevices;

  /** The settings each source reads, keyed {@code <source>.<setting>}. */
  public SourceOptions sourceOptions() {
    Map<String, String> values = new TreeMap<>();
    if (nvidiaDriverRoot != null) {
      values.put("gpu.driverRoot", nvidiaDriverRoot.toString());
    }
    if (nvmlLibrary != null) {
      values.put("gpu.nvmlLibrary", nvmlLibrary.toString());
    }
    values.put("nic-rdma.includeVirtual", Boolean.toString(includeVirtualNics));
    values.put("nic-rdma.madDevices", Boolean.toString(rdmaMadDevices));
    return new SourceOptions(values);
  }

  public HostContext hostContext() {
    return new HostContext(host.toHostFs(), sourceOptions(), Clock.systemUTC());
  }

  /** The selected sources from the installed ones; a bad selection is a usage error. */
  public List<DiscoverySource> selectedSources() {
    DiscoverySources installed = DiscoverySources.load(DiscoveryOptions.class.getClassLoader());
    try {
      return installed.select(sources);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

}
