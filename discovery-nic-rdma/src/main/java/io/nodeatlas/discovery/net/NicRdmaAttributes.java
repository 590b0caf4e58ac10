package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.model.Names;

/**
 * Attribute names this source publishes, besides the standard {@code resource.kubernetes.io/pciBusID},
 * {@code pcieRoot} and {@code numaNode}. Chosen so that every device type stays within the
 * ResourceSlice limit of 32 attributes and capacities.
 */
public final class NicRdmaAttributes {

  public static final String TYPE = Names.ours("type");
  public static final String IF_NAME = Names.ours("ifName");
  public static final String MAC = Names.ours("mac");
  public static final String MTU = Names.ours("mtu");
  public static final String OPER_STATE = Names.ours("operState");
  public static final String SPEED_MBPS = Names.ours("speedMbps");
  public static final String LINK_LAYER = Names.ours("linkLayer");
  public static final String TRANSPORT = Names.ours("transport");
  public static final String RDMA_DEVICE = Names.ours("rdmaDevice");
  public static final String NODE_GUID = Names.ours("nodeGuid");
  public static final String SYS_IMAGE_GUID = Names.ours("sysImageGuid");
  public static final String FIRMWARE_VERSION = Names.ours("firmwareVersion");
  public static final String HCA_TYPE = Names.ours("hcaType");
  public static final String BOARD_ID = Names.ours("boardId");
  public static final String PORT_COUNT = Names.ours("portCount");
  public static final String PORT_STATE = Names.ours("portState");
  public static final String PHYS_STATE = Names.ours("physState");
  public static final String RATE_GBPS = Names.ours("rateGbps");
  public static final String LID = Names.ours("lid");
  public static final String GID_TABLE_SIZE = Names.ours("gidTableSize");
  public static final String ROCE_VERSIONS = Names.ours("roceVersions");
  public static final String RDMA_NETNS_MODE = Names.ours("rdmaNetnsMode");
  public static final String PCI_VENDOR = Names.ours("pciVendor");
  public static final String PCI_DEVICE = Names.ours("pciDevice");
  public static final String PCI_SUBSYSTEM = Names.ours("pciSubsystem");
  public static final String DRIVER = Names.ours("driver");
  public static final String PCI_LINK_SPEED = Names.ours("pciLinkSpeed");
  public static final String PCI_LINK_WIDTH = Names.ours("pciLinkWidth");
  public static final String SRIOV_TOTAL_VFS = Names.ours("sriovTotalVfs");
  public static final String SRIOV_NUM_VFS = Names.ours("sriovNumVfs");
  public static final String PF_NAME = Names.ours("pfName");
  public static final String PF_BUS_ID = Names.ours("pfBusID");
  public static final String VF_INDEX = Names.ours("vfIndex");
  public static final String PHYS_PORT_NAME = Names.ours("physPortName");
  public static final String PHYS_SWITCH_ID = Names.ours("physSwitchId");
  public static final String VIRTUAL = Names.ours("virtual");

  private NicRdmaAttributes() {}
}
