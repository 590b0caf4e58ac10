package io.nodeatlas.discovery.spi;

import java.util.Comparator;

/** Something a source could not read or understand; one warning costs one fact, never the run. */
public record DiscoveryWarning(String source, String message) implements Comparable<DiscoveryWarning> {

  private static final Comparator<DiscoveryWarning> ORDER =
      Comparator.comparing(DiscoveryWarning::source).thenComparing(DiscoveryWarning::message);

  @Override
  public int compareTo(DiscoveryWarning o) {
    return ORDER.compare(this, o);
  }
}
