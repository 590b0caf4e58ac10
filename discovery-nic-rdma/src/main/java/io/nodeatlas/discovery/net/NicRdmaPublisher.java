package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Order;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.GidType;
import io.nodeatlas.discovery.net.model.LinkLayer;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.model.Transport;
import io.nodeatlas.discovery.net.uplink.Uplinks;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Turns an inventory into devices. Each PCI function is published once, and one claim at a time may
 * hold it (no multiple allocations: a netdev moves into one pod, a VF belongs to one pod), so no
 * hardware can be allocated twice: a VF as {@code vf} (with its RDMA device, if it has one), a PF with
 * RDMA devices as one {@code rdma} device per ibdev, any other function with netdevs as {@code nic}.
 *
 * <p>Container edits: the ibdev's {@code uverbsN} and the global {@code rdma_cm} at the host path
 * (libibverbs stats {@code /dev/infiniband/<uverbsN>} by that name), {@code umadN} for InfiniBand
 * ports (fabric tools need it), and with {@code madDevices} umadN for every port plus {@code issmN};
 * NICs and VFs also get a CDI {@code netDevices} entry moving their interfaces into the pod under the
 * same name, except the host's uplinks ({@link io.nodeatlas.discovery.net.uplink.UplinkReader}), which are
 * published marked {@code uplink: true} and without that edit unless {@code allowUplinks}.
 */
public final class NicRdmaPublisher {

  public static final String SOURCE = "nic-rdma";

  private static final Comparator<NetInterface> PORT_ORDER =
      Order.<NetInterface>byInt(n -> n.devPort().orElse(Integer.MAX_VALUE)).then(NetInterface::name);

  private final NicRdmaInventory inventory;
  private final boolean madDevices;
  private final FactReader facts;
  private final Uplinks uplinks;
  private final boolean allowUplinks;
  private final Map<String, NetInterface> byName = new HashMap<>();
  private final Map<PciAddress, List<NetInterface>> nicsByAddress = new TreeMap<>();
  private final Map<PciAddress, List<RdmaDevice>> rdmaByAddress = new TreeMap<>();
  private final Map<String, SortedMap<Integer, NetdevMapper.Link>> netdevs = new HashMap<>();

  private NicRdmaPublisher(NicRdmaInventory inventory, boolean madDevices, FactReader facts, Uplinks uplinks,
      boolean allowUplinks) {
    this.inventory = inventory;
    this.madDevices = madDevices;
    this.facts = facts;
    this.uplinks = uplinks;
    this.allowUplinks = allowUplinks;
  }

  /**
   * The devices of one inventory, sorted by name; every fact that had to be left out is a warning.
   *
   * @param facts the reader the inventory was read with: warnings name host paths through it
   */
  public static List<Device> publish(NicRdmaInventory inventory, boolean madDevices, FactReader facts) {
    return publish(inventory, madDevices, facts, Uplinks.NONE, false);
  }

  /**
   * As {@link #publish(NicRdmaInventory, boolean, FactReader)}, marking the host's uplinks: every device
   * carries {@code uplink} (true when one of its interfaces is an uplink), and an uplink interface gets
   * no {@code netDevices} edit unless {@code allowUplinks}: moving it into a pod would cut the node off.
   */
  public static List<Device> publish(NicRdmaInventory inventory, boolean madDevices, FactReader facts, Uplinks uplinks,
      boolean allowUplinks) {
    return new NicRdmaPublisher(inventory, madDevices, facts, uplinks, allowUplinks).publish();
  }

  /** Which netdev each port of each RDMA device carries, as the publisher sees it. */
  public static Map<String, SortedMap<Integer, NetdevMapper.Link>> netdevLinks(NicRdmaInventory inventory) {
    NicRdmaPublisher p = new NicRdmaPublisher(inventory, false, null, Uplinks.NONE, false);
    p.index();
    return Map.copyOf(p.netdevs);
  }

  private void index() {
    for (NetInterface n : inventory.interfaces()) {
      byName.put(n.name(), n);
      if (!n.virtual() && !n.isRepresentor() && n.pciAddress().isPresent()) {
        nicsByAddress.computeIfAbsent(n.pciAddress().get(), k -> new ArrayList<>()).add(n);
      }
    }
    nicsByAddress.values().forEach(l -> l.sort(PORT_ORDER));
    for (RdmaDevice d : inventory.rdmaDevices()) {
      rdmaByAddress.computeIfAbsent(d.pciAddress(), k -> new ArrayList<>()).add(d);
      netdevs.put(d.name(), NetdevMapper.map(d, byName, nicsByAddress));
    }
  }

  private List<Device> publish() {
    index();
    if (inventory.netnsMode().filter(NetnsMode.EXCLUSIVE::equals).isPresent()) {
      facts.warn(facts.fs().sys("module/ib_core/parameters/netns_mode"), "RDMA netns mode is exclusive: an RDMA "
          + "device is usable only in the network namespace it is assigned to (rdma dev set <ibdev> netns), which "
          + "CDI edits cannot do; pods will fail to open the char devices of devices left in the host namespace");
    }

    Map<String, Device> devices = new LinkedHashMap<>();
    Set<PciAddress> addresses = new TreeSet<>(nicsByAddress.keySet());
    addresses.addAll(rdmaByAddress.keySet());
    for (PciAddress address : addresses) {
      PciFunction pci = inventory.pciFunctions().get(address);
      List<NetInterface> nics = nicsByAddress.getOrDefault(address, List.of());
      List<RdmaDevice> rdma = rdmaByAddress.getOrDefault(address, List.of());
      if (pci != null && pci.sriov() instanceof SriovRole.VirtualFunction vf) {
        if (rdma.size() > 1) {
          facts.warn(facts.fs().sys("bus/pci/devices/" + address), "RDMA devices "
              + rdma.stream().skip(1).map(RdmaDevice::name).toList()
              + " not published; a VF is published with its first RDMA device " + rdma.get(0).name());
        }
        add(devices, vfDevice(address, pci, vf, nics, rdma.isEmpty() ? Optional.empty() : Optional.of(rdma.get(0))));
      } else if (!rdma.isEmpty()) {
        for (RdmaDevice d : rdma) {
          add(devices, rdmaDevice(d, pci));
        }
      } else if (!nics.isEmpty()) {
        add(devices, nicDevice(address, pci, nics));
      }
    }
    for (NetInterface n : inventory.interfaces()) {
      if (n.virtual()) {
        add(devices, virtualNicDevice(n));
      }
    }
    return devices.values().stream().sorted(Order.by(Device::name)).toList();
  }

  private void add(Map<String, Device> devices, Optional<Device> device) {
    device.ifPresent(d -> {
      if (devices.putIfAbsent(d.name(), d) != null) {
        facts.warn("device " + d.name() + " left out: another device already has that name");
      }
    });
  }

  private DeviceDraft draft(String name, String type) {
    // Exclusive: the draft never allows multiple allocations unless told, and nothing here tells it.
    return DeviceDraft.of(name, SOURCE, facts::warn).attribute(TYPE, type);
  }

  private Optional<Device> rdmaDevice(RdmaDevice rdma, PciFunction pci) {
    DeviceDraft d = draft(DeviceNames.rdma(rdma.name()), RDMA);
    Optional<NetInterface> netdev = portNetdev(rdma);
    d.attribute(UPLINK, firstLink(rdma).map(l -> uplinks.isUplink(l.netdev())).orElse(false));
    rdmaAttributes(d, rdma, true);
    if (netdev.isPresent()) {
      interfaceAttributes(d, netdev.get(), false);
    } else {
      firstLink(rdma).ifPresent(link -> d.attribute(IF_NAME, link.netdev()));
    }
    sriovAttributes(d, pci);
    pciAttributes(d, rdma.pciAddress(), pci);
    ContainerEdits.Builder edits = ContainerEdits.builder();
    rdmaDeviceNodes(rdma, edits);
    return d.containerEdits(edits.build()).build();
  }

  private Optional<Device> vfDevice(
      PciAddress address, PciFunction pci, SriovRole.VirtualFunction vf, List<NetInterface> nics, Optional<RdmaDevice> rdma) {
    DeviceDraft d = draft(DeviceNames.vf(address), VF);
    d.attribute(UPLINK, anyUplink(nics));
    d.attribute(PF_BUS_ID, vf.pf().toString());
    d.attribute(VF_INDEX, vf.vfIndex());
    List<NetInterface> pfNics = nicsByAddress.getOrDefault(vf.pf(), List.of());
    if (!pfNics.isEmpty()) {
      d.attribute(PF_NAME, pfNics.get(0).name());
    }
    if (!nics.isEmpty()) {
      interfaceAttributes(d, nics.get(0), true);
    }
    ContainerEdits.Builder edits = ContainerEdits.builder();
    if (rdma.isPresent()) {
      rdmaAttributes(d, rdma.get(), false);
      rdmaDeviceNodes(rdma.get(), edits);
    } else if (!nics.isEmpty()) {
      d.attribute(LINK_LAYER, nics.get(0).linkLayer().map(LinkLayer::label));
    }
    pciAttributes(d, address, pci);
    netDevices(nics, edits);
    return d.containerEdits(edits.build()).build();
  }

  private Optional<Device> nicDevice(PciAddress address, PciFunction pci, List<NetInterface> nics) {
    DeviceDraft d = draft(DeviceNames.nic(address), NIC);
    d.attribute(UPLINK, anyUplink(nics));
    d.attribute(VIRTUAL, false);
    NetInterface primary = nics.get(0);
    interfaceAttributes(d, primary, true);
    d.attribute(LINK_LAYER, primary.linkLayer().map(LinkLayer::label));
    d.attribute(PHYS_PORT_NAME, primary.physPortName());
    d.attribute(PHYS_SWITCH_ID, primary.physSwitchId());
    sriovAttributes(d, pci);
    pciAttributes(d, address, pci);
    ContainerEdits.Builder edits = ContainerEdits.builder();
    netDevices(nics, edits);
    return d.containerEdits(edits.build()).build();
  }

  private Optional<Device> virtualNicDevice(NetInterface nic) {
    DeviceDraft d = draft(DeviceNames.virtualNic(nic.name()), NIC);
    d.attribute(UPLINK, anyUplink(List.of(nic)));
    d.attribute(VIRTUAL, true);
    interfaceAttributes(d, nic, true);
    d.attribute(LINK_LAYER, nic.linkLayer().map(LinkLayer::label));
    ContainerEdits.Builder edits = ContainerEdits.builder();
    netDevices(List.of(nic), edits);
    return d.containerEdits(edits.build()).build();
  }

  /** The common PCI attributes, in the one spelling every PCI source uses. */
  private static void pciAttributes(DeviceDraft d, PciAddress address, PciFunction pci) {
    (pci == null ? PciFunctionFacts.unknown(address) : pci.facts()).publishTo(d);
  }

  private static void sriovAttributes(DeviceDraft d, PciFunction pci) {
    if (pci != null && pci.sriov() instanceof SriovRole.PhysicalFunction pf) {
      d.attribute(SRIOV_TOTAL_VFS, pf.totalVfs());
      d.attribute(SRIOV_NUM_VFS, pf.numVfs());
    }
  }

  private void rdmaAttributes(DeviceDraft d, RdmaDevice rdma, boolean full) {
    d.attribute(RDMA_DEVICE, rdma.name());
    Transport transport = rdma.transport();
    d.attribute(TRANSPORT, transport.label());
    d.attribute(NODE_GUID, rdma.nodeGuid());
    d.attribute(SYS_IMAGE_GUID, rdma.sysImageGuid());
    d.attribute(FIRMWARE_VERSION, rdma.firmwareVersion());
    d.attribute(HCA_TYPE, rdma.hcaType());
    if (full) {
      d.attribute(BOARD_ID, rdma.boardId());
      d.attribute(PORT_COUNT, rdma.ports().size());
    }
    inventory.netnsMode().ifPresent(m -> d.attribute(RDMA_NETNS_MODE, m.label()));
    rdma.firstPort().ifPresent(port -> {
      d.attribute(LINK_LAYER, port.linkLayer().map(LinkLayer::label));
      d.attribute(PORT_STATE, port.state().map(s -> s.label()));
      if (full) {
        d.attribute(PHYS_STATE, port.physState().map(s -> s.label()));
      }
      port.rate().ifPresent(r -> d.attribute(RATE_GBPS, r.wholeGbps()));
      if (port.linkLayer().orElse(LinkLayer.UNKNOWN) == LinkLayer.INFINIBAND) {
        d.attribute(LID, port.lid());
      }
      if (transport == Transport.ROCE && !port.gids().types().isEmpty()) {
        d.attribute(ROCE_VERSIONS, port.gids().types().stream().map(GidType::shortName).collect(Collectors.joining(",")));
      }
    });
  }

  /** ifName, mac, mtu of the interface; operState and speed for devices whose identity is the interface. */
  private static void interfaceAttributes(DeviceDraft d, NetInterface nic, boolean linkState) {
    d.attribute(IF_NAME, nic.name());
    d.attribute(MAC, nic.address());
    d.attribute(MTU, nic.mtu());
    if (linkState) {
      d.attribute(OPER_STATE, nic.operState());
      d.attribute(SPEED_MBPS, nic.speedMbps());
    }
  }

  private Optional<NetdevMapper.Link> firstLink(RdmaDevice rdma) {
    SortedMap<Integer, NetdevMapper.Link> links = netdevs.getOrDefault(rdma.name(), new TreeMap<>());
    return links.isEmpty() ? Optional.empty() : Optional.of(links.get(links.firstKey()));
  }

  private Optional<NetInterface> portNetdev(RdmaDevice rdma) {
    return firstLink(rdma).map(l -> byName.get(l.netdev()));
  }

  private void rdmaDeviceNodes(RdmaDevice rdma, ContainerEdits.Builder edits) {
    CharDeviceTable table = inventory.charDevices();
    Optional<CharDevice> uverbs = table.uverbs(rdma.name());
    uverbs.ifPresentOrElse(d -> edits.deviceNode(node(d)),
        () -> facts.warn(facts.fs().sys("class/infiniband/" + rdma.name()), "no uverbs char device maps to it "
            + "(infiniband_verbs/uverbsN/ibdev); containers will not see it through libibverbs"));
    for (RdmaPort port : rdma.ports()) {
      boolean ib = port.linkLayer().orElse(LinkLayer.UNKNOWN) == LinkLayer.INFINIBAND;
      if (ib || madDevices) {
        table.umad(rdma.name(), port.number()).ifPresent(d -> edits.deviceNode(node(d)));
      }
      if (madDevices) {
        table.issm(rdma.name(), port.number()).ifPresent(d -> edits.deviceNode(node(d)));
      }
    }
    table.rdmaCm().ifPresent(d -> edits.deviceNode(node(d)));
  }

  private static ContainerEdits.DeviceNode node(CharDevice d) {
    return ContainerEdits.DeviceNode.charDevice(d.hostPath(), d.dev().major(), d.dev().minor()).withPermissions("rw");
  }

  private boolean anyUplink(List<NetInterface> nics) {
    return nics.stream().anyMatch(n -> uplinks.isUplink(n.name()));
  }

  private void netDevices(List<NetInterface> nics, ContainerEdits.Builder edits) {
    for (NetInterface n : nics) {
      if (uplinks.isUplink(n.name()) && !allowUplinks) {
        continue; // the host's own traffic runs over it (nic-rdma.allowUplinks lifts this)
      }
      if (n.movable()) {
        edits.netDevice(new ContainerEdits.NetDevice(n.name(), n.name()));
      }
    }
  }
}
