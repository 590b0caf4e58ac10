package io.nodeatlas.discovery.report;

/** How each selected source ended. */
public enum SourceStatus {
  /** Ran; it may still have warnings. */
  OK,
  /** Not usable on this host (no NVML, no sysfs class); a warning says why. Not a failure. */
  UNAVAILABLE,
  /** Threw or could not read its inputs at all; the run's exit status is 1. */
  FAILED;

  public String jsonName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
