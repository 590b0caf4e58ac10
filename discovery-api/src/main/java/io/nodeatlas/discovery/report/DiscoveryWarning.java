package io.nodeatlas.discovery.report;

import io.nodeatlas.discovery.model.Order;
import java.util.Comparator;

/** Something a source could not read or understand; one warning costs one fact, never the run. */
public record DiscoveryWarning(String source, String message) implements Comparable<DiscoveryWarning> {

  private static final Comparator<DiscoveryWarning> ORDER =
      Order.by(DiscoveryWarning::source).then(DiscoveryWarning::message);

  @Override
  public int compareTo(DiscoveryWarning o) {
    return ORDER.compare(this, o);
  }
}
