package io.nodeatlas.discovery.net.model;

import java.util.Optional;

/**
 * A port {@code rate}: the kernel prints {@code "%d%s Gb/sec (%dX%s)"} where the first {@code %s} is
 * {@code ".5"} for half rates and the second the speed name (SDR ... XDR, absent for SDR on old kernels).
 *
 * @param tenthsGbps the rate in units of 0.1 Gb/s, so that 2.5 Gb/s stays exact
 */
public record Rate(int tenthsGbps, int width, Optional<String> speed) {

  /** Whole Gb/s, rounded down: only 1X SDR (2.5) has a fraction, and attributes are integers. */
  public int wholeGbps() {
    return tenthsGbps / 10;
  }
}
