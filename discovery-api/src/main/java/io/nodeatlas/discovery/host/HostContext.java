package io.nodeatlas.discovery.host;

import java.time.Clock;
import java.util.Objects;

/**
 * Everything a discovery source may depend on, injected: where the host's files are, the source
 * settings, a clock, and what the consumer of the devices can represent. Sources hold no other
 * state, so one context can be discovered repeatedly.
 *
 * @param sharedDevicesSupported whether the devices' consumer can publish devices that several
 *     claims share ({@code allowMultipleAllocations} and capacity request policies, KEP-5075). An API
 *     server with the {@code DRAConsumableCapacity} feature off silently drops those fields; the agent
 *     then re-discovers with this false, and a source that would publish a shared device publishes
 *     exclusive devices instead (CPUs: one device per physical core) so the hardware stays
 *     allocatable. True for {@code discover}, {@code cdi} and {@code match}.
 * @param familyStateDir where the families keep what they make at Prepare (the agent's; empty for the
 *     one-shot commands, which then take everything they find on the host as made by others).
 */
public record HostContext(HostFs fs, SourceOptions options, Clock clock, boolean sharedDevicesSupported,
    java.util.Optional<java.nio.file.Path> familyStateDir) {

  public HostContext {
    Objects.requireNonNull(fs, "fs");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(clock, "clock");
    familyStateDir = familyStateDir == null ? java.util.Optional.empty() : familyStateDir;
  }

  public HostContext(HostFs fs, SourceOptions options, Clock clock, boolean sharedDevicesSupported) {
    this(fs, options, clock, sharedDevicesSupported, java.util.Optional.empty());
  }

  public HostContext(HostFs fs, SourceOptions options, Clock clock) {
    this(fs, options, clock, true);
  }

  public static HostContext of(HostFs fs) {
    return new HostContext(fs, SourceOptions.NONE, Clock.systemUTC());
  }

  public HostContext withOptions(SourceOptions newOptions) {
    return new HostContext(fs, newOptions, clock, sharedDevicesSupported, familyStateDir);
  }

  /**
   * The same host, discovered for the agent whose families keep their journals in {@code dir} (the directory
   * {@link io.nodeatlas.discovery.spi.DiscoverySource#deviceRealiser} gets): a family then tells what it made
   * for claims (a MIG instance) from what it found made by others.
   */
  public HostContext withFamilyStateDir(java.nio.file.Path dir) {
    return new HostContext(fs, options, clock, sharedDevicesSupported, java.util.Optional.of(dir));
  }

  /** The same host for a consumer that can, or cannot, publish shared devices. */
  public HostContext withSharedDevicesSupported(boolean supported) {
    return new HostContext(fs, options, clock, supported, familyStateDir);
  }
}
