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
 */
public record HostContext(HostFs fs, SourceOptions options, Clock clock, boolean sharedDevicesSupported) {

  public HostContext {
    Objects.requireNonNull(fs, "fs");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(clock, "clock");
  }

  public HostContext(HostFs fs, SourceOptions options, Clock clock) {
    this(fs, options, clock, true);
  }

  public static HostContext of(HostFs fs) {
    return new HostContext(fs, SourceOptions.NONE, Clock.systemUTC());
  }

  public HostContext withOptions(SourceOptions newOptions) {
    return new HostContext(fs, newOptions, clock, sharedDevicesSupported);
  }

  /** The same host for a consumer that can, or cannot, publish shared devices. */
  public HostContext withSharedDevicesSupported(boolean supported) {
    return new HostContext(fs, options, clock, supported);
  }
}
