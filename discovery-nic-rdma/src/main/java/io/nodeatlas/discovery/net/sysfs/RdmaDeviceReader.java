package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.NodeType;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.parse.GuidParser;
import io.nodeatlas.discovery.net.parse.NodeTypeParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.TextValues;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * {@code /sys/class/infiniband/*} ({@code Documentation/ABI/stable/sysfs-class-infiniband}). Entries
 * are symlinks to the real directory under the parent device; everything is read from the lexically
 * resolved directory so that its own relative links ({@code device -> ../../../<BDF>}) resolve as the
 * kernel meant. Ports come only from {@code ports/} (old kernels also nest an infiniband_cm directory
 * named after the device).
 */
public final class RdmaDeviceReader {

  /**
   * A device plus its directory and its parent's, where the char-device class directories also live,
   * and whether the facts only a device of its own publishes ({@code board_id}, each port's
   * {@code phys_state} and GID netdevs) were read: they are not for a VF's (see
   * {@link #RdmaDeviceReader(FactReader, Predicate)}).
   */
  public record Found(RdmaDevice device, Path dir, Path parentDir, boolean complete) {
    public Path deviceLink() {
      return dir.resolve("device");
    }
  }

  private final FactReader facts;
  private final PortReader ports;
  private final Predicate<Path> virtualFunction;

  /** A reader that reads every device's facts. */
  public RdmaDeviceReader(FactReader facts) {
    this(facts, dir -> false);
  }

  /**
   * @param virtualFunction whether the PCI function directory a device's {@code device} link leads to
   *     is an SR-IOV VF's. A VF's RDMA device is published inside the VF's device, which carries
   *     neither {@code boardID} nor {@code physState} and whose netdev is the VF's own, not the one the
   *     RDMA port maps to (an RDMA device of its own carries all three): {@code board_id},
   *     {@code phys_state} and {@code gid_attrs/ndevs/<i>} are not read for it, four reads per RoCE VF.
   */
  public RdmaDeviceReader(FactReader facts, Predicate<Path> virtualFunction) {
    this.facts = facts;
    this.ports = new PortReader(facts);
    this.virtualFunction = virtualFunction;
  }

  public List<Found> readAll() {
    List<Found> found = new ArrayList<>();
    for (Path entry : facts.list(facts.fs().sys("class/infiniband"))) {
      try {
        read(entry).ifPresent(found::add);
      } catch (IllegalArgumentException e) {
        facts.warn(entry, e.getMessage() + "; RDMA device left out");
      }
    }
    return found;
  }

  public Optional<Found> read(Path entry) {
    HostFs fs = facts.fs();
    String name = entry.getFileName().toString();
    Optional<Path> target = facts.link(entry);
    if (target.isEmpty() && Links.isLink(facts, entry)) {
      return Optional.empty(); // refused: the reader has said why
    }
    Path dir = target.orElse(entry);
    if (!fs.isDirectory(dir)) {
      facts.warn(entry, "leads to " + fs.hostPath(dir) + ", which is not a directory; RDMA device left out");
      return Optional.empty();
    }
    Path deviceLink = dir.resolve("device");
    Optional<Path> parent = facts.link(deviceLink);
    if (parent.isEmpty() && Links.isLink(facts, deviceLink)) {
      return Optional.empty(); // refused: the reader has said why
    }
    Optional<PciAddress> address = parent.flatMap(PciAddress::nearest);
    if (address.isEmpty()) {
      // Soft devices (rxe, siw) have no PCI function to allocate or align.
      facts.warn(entry, "not backed by a PCI function"
          + parent.map(p -> " (its device is " + fs.hostPath(p) + ")").orElse("") + "; RDMA device left out");
      return Optional.empty();
    }
    // A device on the function's own directory (not on an SF below it) whose function is a VF.
    Path parentName = parent.get().getFileName();
    boolean complete = parentName == null || !PciAddress.isSysfsName(parentName.toString())
        || !virtualFunction.test(parent.get());
    NodeType nodeType = facts.read(dir.resolve("node_type"), NodeTypeParser::parse).orElse(NodeType.UNKNOWN);
    RdmaDevice device = new RdmaDevice(
        name,
        address.get(),
        nodeType,
        facts.read(dir.resolve("node_guid"), GuidParser::parse),
        facts.read(dir.resolve("sys_image_guid"), GuidParser::parse),
        facts.read(dir.resolve("fw_ver"), TextValues::freeText),
        facts.read(dir.resolve("hca_type"), TextValues::freeText),
        complete ? boardId(dir) : Optional.empty(),
        readPorts(dir, complete));
    return Optional.of(new Found(device, dir, parent.get(), complete));
  }

  /**
   * The device with the facts {@link #read} left out for a VF's read after all, for one whose function
   * turned out not to be a VF (the SR-IOV pass read another directory of it than this device's parent).
   */
  public Found complete(Found found) {
    if (found.complete()) {
      return found;
    }
    RdmaDevice d = found.device();
    Optional<String> boardId = boardId(found.dir());
    // The ports again, by the names the first read found them under; its warnings were given then.
    TreeMap<Integer, Path> portDirs = portDirs(new FactReader(facts.fs(), warning -> {}), found.dir());
    List<RdmaPort> complete = new ArrayList<>();
    for (RdmaPort p : d.ports()) {
      Path portDir = portDirs.get(p.number());
      complete.add(portDir == null ? p : ports.complete(portDir, p));
    }
    return new Found(new RdmaDevice(d.name(), d.pciAddress(), d.nodeType(), d.nodeGuid(), d.sysImageGuid(),
        d.firmwareVersion(), d.hcaType(), boardId, complete), found.dir(), found.parentDir(), true);
  }

  private Optional<String> boardId(Path dir) {
    return facts.read(dir.resolve("board_id"), TextValues::freeText);
  }

  private List<RdmaPort> readPorts(Path dir, boolean complete) {
    List<RdmaPort> result = new ArrayList<>();
    portDirs(facts, dir).forEach((number, portDir) -> {
      if (!facts.isDirectory(portDir)) {
        facts.warn(portDir, "not a directory; port left out");
        return;
      }
      result.add(ports.read(portDir, number, complete));
    });
    return result;
  }

  /** The entries of {@code ports/} by port number, the last name of a number winning; others warned about through {@code reader}. */
  private static TreeMap<Integer, Path> portDirs(FactReader reader, Path dir) {
    TreeMap<Integer, Path> byNumber = new TreeMap<>();
    Path portsDir = dir.resolve("ports");
    for (String name : reader.names(portsDir)) {
      Path p = portsDir.resolve(name);
      try {
        byNumber.put(Numbers.parseInt(name, 0, 255), p);
      } catch (IllegalArgumentException e) {
        reader.warn(p, "not a port number; ignored");
      }
    }
    return byNumber;
  }
}
