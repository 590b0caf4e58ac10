package io.nodeatlas.discovery.net.model;

/** {@code ports/<n>/gid_attrs/types/<i>} (kernel ≥ 4.4): {@code IB/RoCE v1} or {@code RoCE v2}. */
public enum GidType {
  IB_ROCE_V1("IB/RoCE v1", "v1"),
  ROCE_V2("RoCE v2", "v2");

  private final String sysfsText;
  private final String shortName;

  GidType(String sysfsText, String shortName) {
    this.sysfsText = sysfsText;
    this.shortName = shortName;
  }

  public String sysfsText() {
    return sysfsText;
  }

  public String shortName() {
    return shortName;
  }
}
