package io.nodeatlas.discovery.spi;

import io.nodeatlas.discovery.host.HostContext;

/**
 * A pluggable discovery module, found with {@link java.util.ServiceLoader}: each module ships
 * {@code META-INF/services/io.nodeatlas.discovery.spi.DiscoverySource}. Implementations must be
 * stateless and thread-safe, read the host only through {@link HostContext#fs()}, and degrade per
 * fact: a broken file becomes a warning, not an exception. {@link DiscoveryException} is for the
 * source failing as a whole.
 */
public interface DiscoverySource {

  /** The name users select with {@code --sources} (a DNS label: {@code cpu-numa}, {@code gpu}, {@code nic-rdma}). */
  String name();

  /**
   * Whether the source can run here (NVML present, sysfs class directory present...). An unavailable
   * source is skipped with one warning carrying the reason; it is not a failure.
   */
  default Availability availability(HostContext host) {
    return Availability.ok();
  }

  DiscoveryResult discover(HostContext host) throws DiscoveryException;
}
