package io.nodeatlas.discovery.net.model;

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
}
