package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlLibrary;
import io.nodeatlas.discovery.host.HostContext;

/**
 * Finds and loads NVML for a host. Injected into {@link GpuDiscoverySource} so that tests can hand
 * it any {@link NvmlLibrary}; the default is {@link NvmlLibraryLocator#load}.
 */
@FunctionalInterface
public interface NvmlLoader {

  /** The library to use; {@code NVML_ERROR_LIBRARY_NOT_FOUND} when there is none. */
  NvmlLibrary load(HostContext host) throws NvmlException;

  /** Always the same library, whatever the host says. */
  static NvmlLoader of(NvmlLibrary library) {
    return host -> library;
  }
}
