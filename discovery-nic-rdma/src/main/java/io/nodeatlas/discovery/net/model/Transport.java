package io.nodeatlas.discovery.net.model;

/**
 * How an RDMA port moves data. Decided by link layer and node type only: the PCI class lies (mlx4
 * VPI is {@code 0x028000}, qib {@code 0x0c0600}).
 */
public enum Transport {
  INFINIBAND("infiniband"),
  ROCE("roce"),
  IWARP("iwarp"),
  OTHER("other");

  private final String label;

  Transport(String label) {
    this.label = label;
  }

  /** The published value, lower case like every enum-like attribute value. */
  public String label() {
    return label;
  }

  /** RNIC is iWARP whatever the link layer; a CA is InfiniBand or RoCE by its port's link layer. */
  public static Transport of(NodeType nodeType, LinkLayer linkLayer) {
    if (nodeType == NodeType.RNIC) {
      return IWARP;
    }
    if (linkLayer == LinkLayer.INFINIBAND) {
      return INFINIBAND;
    }
    if (linkLayer == LinkLayer.ETHERNET && nodeType == NodeType.CA) {
      return ROCE;
    }
    return OTHER;
  }
}
