package io.nodeatlas.discovery.net.model;

import java.util.Locale;

/** {@code ports/<n>/link_layer}: the kernel prints exactly one of these three words. */
public enum LinkLayer {
  INFINIBAND("InfiniBand"),
  ETHERNET("Ethernet"),
  UNKNOWN("Unknown");

  private final String sysfsText;

  LinkLayer(String sysfsText) {
    this.sysfsText = sysfsText;
  }

  public String sysfsText() {
    return sysfsText;
  }

  /** The published value: lower case, as every enum-like attribute value ({@code infiniband}, {@code ethernet}). */
  public String label() {
    return sysfsText.toLowerCase(Locale.ROOT);
  }
}
