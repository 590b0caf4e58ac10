package io.nodeatlas.discovery.net.model;

/**
 * {@code /sys/class/infiniband/<ibdev>/node_type}, printed by the kernel as {@code "%d: %s"} from
 * {@code enum rdma_node_type} (sysfs-class-infiniband ABI); anything else prints {@code <unknown>}.
 */
public enum NodeType {
  CA(1, "CA"),
  SWITCH(2, "switch"),
  ROUTER(3, "router"),
  RNIC(4, "RNIC"),
  USNIC(5, "usNIC"),
  USNIC_UDP(6, "usNIC UDP"),
  UNSPECIFIED(7, "unspecified"),
  UNKNOWN(0, "unknown");

  private final int code;
  private final String label;

  NodeType(int code, String label) {
    this.code = code;
    this.label = label;
  }

  public int code() {
    return code;
  }

  public String label() {
    return label;
  }

  public static NodeType ofCode(int code) {
    for (NodeType t : values()) {
      if (t.code == code && t != UNKNOWN) {
        return t;
      }
    }
    return UNKNOWN;
  }
}
