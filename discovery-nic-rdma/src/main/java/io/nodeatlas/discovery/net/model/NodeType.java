package io.nodeatlas.discovery.net.model;

/**
 * {@code /sys/class/infiniband/<ibdev>/node_type}, printed by the kernel as {@code "%d: %s"} from
 * {@code enum rdma_node_type} (sysfs-class-infiniband ABI); anything else prints {@code <unknown>}.
 * Only the number is read: it is the kernel's enum value, the text after it is a display name.
 */
public enum NodeType {
  CA(1),
  SWITCH(2),
  ROUTER(3),
  RNIC(4),
  USNIC(5),
  USNIC_UDP(6),
  UNSPECIFIED(7),
  UNKNOWN(0);

  private final int code;

  NodeType(int code) {
    this.code = code;
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
