package io.nodeatlas.discovery.net.model;

/**
 * The RDMA subsystem's network-namespace mode, {@code /sys/module/ib_core/parameters/netns_mode}
 * ({@code Y} shared, {@code N} exclusive). The parameter is the variable {@code rdma system set
 * netns} changes, so it reflects the current mode.
 */
public enum NetnsMode {
  SHARED("shared"),
  EXCLUSIVE("exclusive");

  private final String label;

  NetnsMode(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
