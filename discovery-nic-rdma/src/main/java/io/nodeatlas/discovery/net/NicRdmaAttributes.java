package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.model.AttributeDoc;
import java.util.ArrayList;
import java.util.List;

/**
 * The names this source publishes and their catalogue entries. The common PCI attributes
 * ({@code resource.kubernetes.io/pciBusID}, {@code pcieRoot}, {@code numaNode}, {@code pciVendorID}, ...)
 * are {@link PciFunctionFacts}'s, published with {@link PciFunctionFacts#publishTo}. Every device type
 * stays within the ResourceSlice limit of 32 attributes and capacities (a VF with an RDMA device uses
 * all 32).
 */
public final class NicRdmaAttributes {

  public static final String RDMA = "rdma";
  public static final String NIC = "nic";
  public static final String VF = "vf";

  public static final String TYPE = Device.TYPE;
  public static final String IF_NAME = Names.ours("ifName");
  public static final String MAC = Names.ours("mac");
  public static final String MTU = Names.ours("mtu");
  public static final String OPER_STATE = Names.ours("operState");
  public static final String SPEED_MBPS = Names.ours("speedMbps");
  public static final String LINK_LAYER = Names.ours("linkLayer");
  public static final String TRANSPORT = Names.ours("transport");
  public static final String RDMA_DEVICE = Names.ours("rdmaDevice");
  public static final String NODE_GUID = Names.ours("nodeGUID");
  public static final String SYS_IMAGE_GUID = Names.ours("sysImageGUID");
  public static final String FIRMWARE_VERSION = Names.ours("firmwareVersion");
  public static final String HCA_TYPE = Names.ours("hcaType");
  public static final String BOARD_ID = Names.ours("boardID");
  public static final String PORT_COUNT = Names.ours("portCount");
  public static final String PORT_STATE = Names.ours("portState");
  public static final String PHYS_STATE = Names.ours("physState");
  public static final String RATE_GBPS = Names.ours("rateGbps");
  public static final String LID = Names.ours("lid");
  public static final String ROCE_VERSIONS = Names.ours("roceVersions");
  public static final String RDMA_NETNS_MODE = Names.ours("rdmaNetnsMode");
  public static final String SRIOV_TOTAL_VFS = Names.ours("sriovTotalVFs");
  public static final String SRIOV_NUM_VFS = Names.ours("sriovNumVFs");
  public static final String PF_NAME = Names.ours("pfName");
  public static final String PF_BUS_ID = Names.ours("pfBusID");
  public static final String VF_INDEX = Names.ours("vfIndex");
  public static final String PHYS_PORT_NAME = Names.ours("physPortName");
  public static final String PHYS_SWITCH_ID = Names.ours("physSwitchID");
  public static final String VIRTUAL = Names.ours("virtual");
  public static final String UPLINK = Names.ours("uplink");

  /** The PCI function of a ConnectX-7 port, the example of the PCI attributes. */
  private static final PciFunctionFacts CX7_FUNCTION = PciFunctionFacts.example("0000:1a:00.0", "pci0000:15", "15b3",
      "1021", "15b3", "0021", "mlx5_core", "32.0 GT/s", 16);

  private NicRdmaAttributes() {}

  /** Every attribute of the {@code rdma}, {@code vf} and {@code nic} device types. */
  public static List<AttributeDoc> catalogue() {
    List<AttributeDoc> docs = new ArrayList<>();
    List<String> all = List.of(RDMA, VF, NIC);
    List<String> rdmaAndVf = List.of(RDMA, VF);
    add(docs, all, TYPE, "string", "", "rdma",
        "Device type: rdma (an RDMA device of a PF or non-SR-IOV function), vf (an SR-IOV virtual function), nic (a network function without RDMA, or a virtual interface).");

    add(docs, all, UPLINK, "bool", "", "false",
        "Whether the host's own traffic runs over the device's interface: it carries a default route (IPv4 or IPv6) "
        + "or the node's IP (--node-ip), or lies below such an interface (lower_* links: the NICs of a bond, bridge or "
        + "VLAN). An uplink has no netDevices edit unless --allow-uplink-nics, and the NIC DeviceClass leaves it out; "
        + "for rdma, whether its port's interface is one (the rdma device never moves it). Always present.");

    // The PCI function, as every PCI source publishes it (Documentation/ABI/testing/sysfs-bus-pci).
    for (String type : all) {
      docs.addAll(CX7_FUNCTION.catalogue(type, "the function"));
    }

    // SR-IOV (sysfs-bus-pci sriov_*, virtfnN, physfn).
    add(docs, List.of(RDMA, NIC), SRIOV_TOTAL_VFS, "int", "", "16",
        "How many VFs the physical function supports (sriov_totalvfs); only on SR-IOV capable functions.");
    add(docs, List.of(RDMA, NIC), SRIOV_NUM_VFS, "int", "", "8", "How many VFs are enabled now (sriov_numvfs).");
    add(docs, List.of(VF), PF_BUS_ID, "string", "", "0000:1a:00.0", "PCI address of the VF's physical function (its physfn link).");
    add(docs, List.of(VF), PF_NAME, "string", "", "enp26s0np0", "First network interface of the VF's physical function.");
    add(docs, List.of(VF), VF_INDEX, "int", "", "0", "Index of the VF on its PF (the N of the PF's virtfnN link).");

    // The network interface (Documentation/ABI/testing/sysfs-class-net).
    add(docs, all, IF_NAME, "string", "", "enp26s0np0",
        "Network interface of the function (for rdma: the netdev its first port carries).");
    add(docs, all, MAC, "string", "", "b8:3f:d2:1a:00:00",
        "Hardware address of that interface, lower case (20 bytes for IPoIB).");
    add(docs, all, MTU, "int", "bytes", "9000", "MTU of that interface.");
    add(docs, List.of(VF, NIC), OPER_STATE, "string", "", "up",
        "Operational state of the interface (RFC 2863, lower case: up, down, lowerlayerdown, ...).");
    add(docs, List.of(VF, NIC), SPEED_MBPS, "int", "Mb/s", "400000",
        "Ethernet link speed of the interface; left out while the link is down or the speed unknown.");
    add(docs, all, LINK_LAYER, "string", "", "ethernet",
        "Link layer, lower case: ethernet, infiniband (or unknown); from the RDMA port, else from the interface type.");
    add(docs, List.of(NIC), PHYS_PORT_NAME, "string", "", "p0", "Physical port name the driver gives the interface (phys_port_name).");
    add(docs, List.of(NIC), PHYS_SWITCH_ID, "string", "", "c2cfc60003a1420c",
        "Switch id of an eswitch in switchdev mode (phys_switch_id); left out in legacy mode.");
    add(docs, List.of(NIC), VIRTUAL, "bool", "", "false",
        "Whether the interface is virtual (lo, bridges, veth, VLANs: no device of its own); always present.");

    // The RDMA device (Documentation/ABI/stable/sysfs-class-infiniband).
    add(docs, rdmaAndVf, RDMA_DEVICE, "string", "", "mlx5_0", "Name of the RDMA device (ibdev) of the function.");
    add(docs, rdmaAndVf, TRANSPORT, "string", "", "roce",
        "How the RDMA device moves data, lower case: infiniband, roce, iwarp or other (from node type and link layer).");
    add(docs, rdmaAndVf, NODE_GUID, "string", "", "b83f:d203:001a:0000", "Node GUID of the RDMA device, as sysfs prints it.");
    add(docs, rdmaAndVf, SYS_IMAGE_GUID, "string", "", "b83f:d203:001a:0000",
        "System image GUID: the same for all functions of one adapter.");
    add(docs, rdmaAndVf, FIRMWARE_VERSION, "string", "", "28.39.1002", "Firmware version the driver reports (fw_ver).");
    add(docs, rdmaAndVf, HCA_TYPE, "string", "", "MT4129", "Adapter type the driver reports (hca_type).");
    add(docs, List.of(RDMA), BOARD_ID, "string", "", "MT_0000000838", "Board id the driver reports (board_id).");
    add(docs, List.of(RDMA), PORT_COUNT, "int", "", "1", "Number of ports of the RDMA device.");
    add(docs, rdmaAndVf, PORT_STATE, "string", "", "active",
        "Logical state of the first port, lower case (down, init, armed, active, active_defer).");
    add(docs, List.of(RDMA), PHYS_STATE, "string", "", "linkup",
        "Physical state of the first port, lower case (sleep, polling, disabled, linkup, linkerrorrecovery, ...).");
    add(docs, rdmaAndVf, RATE_GBPS, "int", "Gb/s", "400",
        "Data rate of the first RDMA port (rate), rounded down to whole Gb/s; unlike speedMbps it is the RDMA port's own view and present while the link is down.");
    add(docs, rdmaAndVf, LID, "int", "", "60", "InfiniBand local identifier of the first port; only on InfiniBand ports.");
    add(docs, rdmaAndVf, ROCE_VERSIONS, "string", "", "v1,v2",
        "RoCE versions the first port's populated GIDs use; only on RoCE ports that have GIDs.");
    add(docs, rdmaAndVf, RDMA_NETNS_MODE, "string", "", "shared",
        "The RDMA subsystem's network-namespace mode (ib_core netns_mode): shared or exclusive.");
    return List.copyOf(docs);
  }

  private static void add(List<AttributeDoc> docs, List<String> types, String name, String valueType, String unit,
      String example, String meaning) {
    for (String type : types) {
      docs.add(AttributeDoc.attribute(type, name, valueType, unit, example, meaning));
    }
  }
}
