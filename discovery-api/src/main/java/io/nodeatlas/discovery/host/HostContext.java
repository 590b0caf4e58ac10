package io.nodeatlas.discovery.host;

import java.time.Clock;
import java.util.Objects;

/**
 * Everything a discovery source may depend on, injected: where the host's files are, the source
 * settings, and a clock. Sources hold no other state, so one context can be discovered repeatedly.
 */
public record HostContext(HostFs fs, SourceOptions options, Clock clock) {

  public HostContext {
    Objects.requireNonNull(fs, "fs");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(clock, "clock");
  }

  public static HostContext of(HostFs fs) {
    return new HostContext(fs, SourceOptions.NONE, Clock.systemUTC());
  }

  public HostContext withOptions(SourceOptions newOptions) {
    return new HostContext(fs, newOptions, clock);
  }
}
