package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.GidType;
import io.nodeatlas.discovery.net.model.LinkLayer;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.model.Transport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Turns an inventory into devices. Each PCI function is published once, so that no hardware can be
 * allocated twice: a VF as {@code vf} (with its RDMA device, if it has one), a PF with RDMA devices
 * as one {@code rdma} device per ibdev, any other function with netdevs as {@code nic}.
 *
 * <p>Container edits (rdma-nic-hugepages.md §1.3–1.4): the ibdev's {@code uverbsN} and the global
 * {@code rdma_cm} at the host path (libibverbs stats {@code /dev/infiniband/<uverbsN>} by that name),
 * {@code umadN} for InfiniBand ports (fabric tools need it), and with {@code madDevices} umadN for
 * every port plus {@code issmN}; NICs and VFs also get a CDI {@code netDevices} entry moving their
 * interfaces into the pod under the same name.
 */
public final class NicRdmaPublisher {

  public static final String SOURCE = "nic-rdma";

  private static final Comparator<NetInterface> PORT_ORDER =
      Comparator.comparingInt((NetInterface n) -> n.devPort().orElse(Integer.MAX_VALUE)).thenComparing(NetInterface::name);

  private final NicRdmaInventory inventory;
  private final boolean madDevices;
  private final Consumer<String> warn;
  private final Map<String, NetInterface> byName = new HashMap<>();
  private final Map<String, List<NetInterface>> nicsByBdf = new TreeMap<>();
  private final Map<String, List<RdmaDevice>> rdmaByBdf = new TreeMap<>();
  private final Map<String, SortedMap<Integer, NetdevMapper.Link>> netdevs = new HashMap<>();

  private NicRdmaPublisher(NicRdmaInventory inventory, boolean madDevices, Consumer<String> warn) {
    this.inventory = inventory;
    this.madDevices = madDevices;
    this.warn = warn;
  }

  /** The devices of one inventory, sorted by name; every fact that had to be left out is a warning. */
  public static List<Device> publish(NicRdmaInventory inventory, boolean madDevices, Consumer<String> warn) {
    return new NicRdmaPublisher(inventory, madDevices, warn).publish();
  }

  /** Which netdev each port of each RDMA device carries (§1.5), as the publisher sees it. */
  public static Map<String, SortedMap<Integer, NetdevMapper.Link>> netdevLinks(NicRdmaInventory inventory) {
    NicRdmaPublisher p = new NicRdmaPublisher(inventory, false, m -> {});
    p.index();
    return Map.copyOf(p.netdevs);
  }

  private void index() {
    for (NetInterface n : inventory.interfaces()) {
      byName.put(n.name(), n);
      if (!n.virtual() && !n.isRepresentor() && n.pciBusId().isPresent()) {
        nicsByBdf.computeIfAbsent(n.pciBusId().get(), k -> new ArrayList<>()).add(n);
      }
    }
    nicsByBdf.values().forEach(l -> l.sort(PORT_ORDER));
    for (RdmaDevice d : inventory.rdmaDevices()) {
      rdmaByBdf.computeIfAbsent(d.pciBusId(), k -> new ArrayList<>()).add(d);
      netdevs.put(d.name(), NetdevMapper.map(d, byName, nicsByBdf));
    }
  }

  private List<Device> publish() {
    index();
    if (!inventory.rdmaDevices().isEmpty()) {
      if (inventory.charDevices().rdmaCm().isEmpty()) {
        warn.accept("rdma_cm char device not found (/sys/class/misc/rdma_cm; is rdma_ucm loaded?): "
            + "containers get no /dev/infiniband/rdma_cm and RDMA CM applications will fail");
      }
      inventory.netnsMode().ifPresentOrElse(mode -> {
        if (mode == io.nodeatlas.discovery.net.model.NetnsMode.EXCLUSIVE) {
          warn.accept("RDMA netns mode is exclusive: an RDMA device is usable only in the network namespace "
              + "it is assigned to (rdma dev set <ibdev> netns), which CDI edits cannot do; "
              + "pods will fail to open the char devices of devices left in the host namespace");
        }
      }, () -> warn.accept("RDMA netns mode unknown (/sys/module/ib_core/parameters/netns_mode unreadable); "
          + "rdmaNetnsMode left out"));
    }

    Map<String, Device> devices = new LinkedHashMap<>();
    Set<String> bdfs = new java.util.TreeSet<>(nicsByBdf.keySet());
    bdfs.addAll(rdmaByBdf.keySet());
    for (String bdf : bdfs) {
      PciFunction pci = inventory.pciFunctions().get(bdf);
      List<NetInterface> nics = nicsByBdf.getOrDefault(bdf, List.of());
      List<RdmaDevice> rdma = rdmaByBdf.getOrDefault(bdf, List.of());
      if (pci != null && pci.sriov() instanceof SriovRole.VirtualFunction vf) {
        if (rdma.size() > 1) {
          warn.accept("VF " + bdf + ": RDMA devices " + rdma.stream().skip(1).map(RdmaDevice::name).toList()
              + " not published; a VF is published with its first RDMA device " + rdma.get(0).name());
        }
        add(devices, vfDevice(bdf, pci, vf, nics, rdma.isEmpty() ? Optional.empty() : Optional.of(rdma.get(0))));
      } else if (!rdma.isEmpty()) {
        for (RdmaDevice d : rdma) {
          add(devices, rdmaDevice(d, pci));
        }
      } else if (!nics.isEmpty()) {
        add(devices, nicDevice(bdf, pci, nics));
      }
    }
    for (NetInterface n : inventory.interfaces()) {
      if (n.virtual()) {
        add(devices, virtualNicDevice(n));
      }
    }
    return devices.values().stream().sorted(Comparator.comparing(Device::name)).toList();
  }

  private void add(Map<String, Device> devices, Optional<Device> device) {
    device.ifPresent(d -> {
      if (devices.putIfAbsent(d.name(), d) != null) {
        warn.accept("device " + d.name() + " left out: another device already has that name");
      }
    });
  }

  private Optional<Device> rdmaDevice(RdmaDevice rdma, PciFunction pci) {
    Attrs a = new Attrs(DeviceNames.rdma(rdma.name()));
    a.put(TYPE, "rdma");
    pciAttributes(a, rdma.pciBusId(), pci);
    rdmaAttributes(a, rdma, true);
    sriovAttributes(a, pci);
    portNetdev(rdma).ifPresent(nic -> interfaceAttributes(a, nic, false));
    if (portNetdev(rdma).isEmpty()) {
      firstLink(rdma).ifPresent(link -> a.put(IF_NAME, link.netdev()));
    }
    ContainerEdits.Builder edits = ContainerEdits.builder();
    rdmaDeviceNodes(rdma, edits);
    return a.build(edits.build());
  }

  private Optional<Device> vfDevice(
      String bdf, PciFunction pci, SriovRole.VirtualFunction vf, List<NetInterface> nics, Optional<RdmaDevice> rdma) {
    Attrs a = new Attrs(DeviceNames.vf(bdf));
    a.put(TYPE, "vf");
    pciAttributes(a, bdf, pci);
    a.put(PF_BUS_ID, vf.pfBdf());
    vf.vfIndex().ifPresent(i -> a.put(VF_INDEX, i));
    List<NetInterface> pfNics = nicsByBdf.getOrDefault(vf.pfBdf(), List.of());
    if (!pfNics.isEmpty()) {
      a.put(PF_NAME, pfNics.get(0).name());
    }
    if (!nics.isEmpty()) {
      interfaceAttributes(a, nics.get(0), true);
    }
    ContainerEdits.Builder edits = ContainerEdits.builder();
    rdma.ifPresent(d -> {
      rdmaAttributes(a, d, false);
      rdmaDeviceNodes(d, edits);
    });
    netDevices(nics, edits);
    return a.build(edits.build());
  }

  private Optional<Device> nicDevice(String bdf, PciFunction pci, List<NetInterface> nics) {
    Attrs a = new Attrs(DeviceNames.nic(bdf));
    a.put(TYPE, "nic");
    pciAttributes(a, bdf, pci);
    sriovAttributes(a, pci);
    NetInterface primary = nics.get(0);
    interfaceAttributes(a, primary, true);
    primary.linkLayer().ifPresent(l -> a.put(LINK_LAYER, l.sysfsText()));
    primary.physPortName().ifPresent(v -> a.put(PHYS_PORT_NAME, v));
    primary.physSwitchId().ifPresent(v -> a.put(PHYS_SWITCH_ID, v));
    ContainerEdits.Builder edits = ContainerEdits.builder();
    netDevices(nics, edits);
    return a.build(edits.build());
  }

  private Optional<Device> virtualNicDevice(NetInterface nic) {
    Attrs a = new Attrs(DeviceNames.virtualNic(nic.name()));
    a.put(TYPE, "nic");
    a.put(VIRTUAL, true);
    interfaceAttributes(a, nic, true);
    nic.linkLayer().ifPresent(l -> a.put(LINK_LAYER, l.sysfsText()));
    ContainerEdits.Builder edits = ContainerEdits.builder();
    netDevices(List.of(nic), edits);
    return a.build(edits.build());
  }

  private void pciAttributes(Attrs a, String bdf, PciFunction pci) {
    a.put(Names.PCI_BUS_ID, bdf);
    if (pci == null) {
      return;
    }
    pci.pcieRoot().ifPresent(r -> a.put(Names.PCIE_ROOT, r));
    pci.numaNode().ifPresent(n -> a.put(Names.NUMA_NODE, n));
    pci.vendor().ifPresent(v -> a.put(PCI_VENDOR, v));
    pci.device().ifPresent(v -> a.put(PCI_DEVICE, v));
    if (pci.subsystemVendor().isPresent() && pci.subsystemDevice().isPresent()) {
      a.put(PCI_SUBSYSTEM, pci.subsystemVendor().get() + ":" + pci.subsystemDevice().get());
    }
    pci.driver().ifPresent(v -> a.put(DRIVER, v));
    pci.linkSpeed().ifPresent(v -> a.put(PCI_LINK_SPEED, v));
    pci.linkWidth().ifPresent(v -> a.put(PCI_LINK_WIDTH, v));
  }

  private void sriovAttributes(Attrs a, PciFunction pci) {
    if (pci != null && pci.sriov() instanceof SriovRole.PhysicalFunction pf) {
      a.put(SRIOV_TOTAL_VFS, pf.totalVfs());
      a.put(SRIOV_NUM_VFS, pf.numVfs());
    }
  }

  private void rdmaAttributes(Attrs a, RdmaDevice rdma, boolean full) {
    a.put(RDMA_DEVICE, rdma.name());
    Transport transport = rdma.transport();
    a.put(TRANSPORT, transport.label());
    rdma.nodeGuid().ifPresent(v -> a.put(NODE_GUID, v));
    rdma.sysImageGuid().ifPresent(v -> a.put(SYS_IMAGE_GUID, v));
    rdma.firmwareVersion().ifPresent(v -> a.put(FIRMWARE_VERSION, v));
    rdma.hcaType().ifPresent(v -> a.put(HCA_TYPE, v));
    if (full) {
      rdma.boardId().ifPresent(v -> a.put(BOARD_ID, v));
      a.put(PORT_COUNT, rdma.ports().size());
    }
    inventory.netnsMode().ifPresent(m -> a.put(RDMA_NETNS_MODE, m.label()));
    rdma.firstPort().ifPresent(port -> {
      port.linkLayer().ifPresent(l -> a.put(LINK_LAYER, l.sysfsText()));
      port.state().ifPresent(s -> a.put(PORT_STATE, s.name()));
      if (full) {
        port.physState().ifPresent(s -> a.put(PHYS_STATE, s.name()));
      }
      port.rate().ifPresent(r -> a.put(RATE_GBPS, r.wholeGbps()));
      if (port.linkLayer().orElse(LinkLayer.UNKNOWN) == LinkLayer.INFINIBAND) {
        port.lid().ifPresent(l -> a.put(LID, l));
      }
      a.put(GID_TABLE_SIZE, port.gids().size());
      if (transport == Transport.ROCE && !port.gids().types().isEmpty()) {
        a.put(ROCE_VERSIONS, port.gids().types().stream().map(GidType::shortName).collect(Collectors.joining(",")));
      }
    });
  }

  /** ifName, mac, mtu of the interface; operState and speed for devices whose identity is the interface. */
  private void interfaceAttributes(Attrs a, NetInterface nic, boolean linkState) {
    a.put(IF_NAME, nic.name());
    nic.address().ifPresent(v -> a.put(MAC, v));
    nic.mtu().ifPresent(v -> a.put(MTU, v));
    if (linkState) {
      nic.operState().ifPresent(v -> a.put(OPER_STATE, v));
      nic.speedMbps().ifPresent(v -> a.put(SPEED_MBPS, v));
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
        () -> warn.accept("RDMA device " + rdma.name() + ": no uverbs char device maps to it; "
            + "containers will not see it through libibverbs"));
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

  private void netDevices(List<NetInterface> nics, ContainerEdits.Builder edits) {
    for (NetInterface n : nics) {
      if (n.movable()) {
        edits.netDevice(new ContainerEdits.NetDevice(n.name(), n.name()));
      }
    }
  }

  /** Collects one device's attributes; a string over the API's 64 bytes costs that attribute and a warning. */
  private final class Attrs {
    private final Device.Builder builder;
    private final String name;
    private final Set<String> seen = new HashSet<>();

    Attrs(String name) {
      this.name = name;
      this.builder = Device.builder(name, SOURCE);
    }

    void put(String key, String value) {
      int bytes = value.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > AttributeValue.MAX_VALUE_BYTES) {
        warn.accept("device " + name + ": " + key + " left out: value is " + bytes + " bytes, the API allows "
            + AttributeValue.MAX_VALUE_BYTES);
        return;
      }
      seen.add(key);
      builder.attribute(key, value);
    }

    void put(String key, long value) {
      seen.add(key);
      builder.attribute(key, value);
    }

    void put(String key, boolean value) {
      seen.add(key);
      builder.attribute(key, value);
    }

    Optional<Device> build(ContainerEdits edits) {
      try {
        return Optional.of(builder.containerEdits(edits).build());
      } catch (IllegalArgumentException e) {
        warn.accept("device " + name + " left out: " + e.getMessage());
        return Optional.empty();
      }
    }
  }
}
