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

/**
 * {@code /sys/class/infiniband/*} ({@code Documentation/ABI/stable/sysfs-class-infiniband}). Entries
 * are symlinks to the real directory under the parent device; everything is read from the lexically
 * resolved directory so that its own relative links ({@code device -> ../../../<BDF>}) resolve as the
 * kernel meant. Ports come only from {@code ports/} (old kernels also nest an infiniband_cm directory
 * named after the device).
 */
public final class RdmaDeviceReader {

  /** A device plus its directory and its parent's, where the char-device class directories also live. */
  public record Found(RdmaDevice device, Path dir, Path parentDir) {
    public Path deviceLink() {
      return dir.resolve("device");
    }
  }

  private final FactReader facts;
  private final PortReader ports;

  public RdmaDeviceReader(FactReader facts) {
    this.facts = facts;
    this.ports = new PortReader(facts);
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
    NodeType nodeType = facts.read(dir.resolve("node_type"), NodeTypeParser::parse).orElse(NodeType.UNKNOWN);
    RdmaDevice device = new RdmaDevice(
        name,
        address.get(),
        nodeType,
        facts.read(dir.resolve("node_guid"), GuidParser::parse),
        facts.read(dir.resolve("sys_image_guid"), GuidParser::parse),
        facts.read(dir.resolve("fw_ver"), TextValues::freeText),
        facts.read(dir.resolve("hca_type"), TextValues::freeText),
        facts.read(dir.resolve("board_id"), TextValues::freeText),
        readPorts(dir, name));
    return Optional.of(new Found(device, dir, parent.get()));
  }

  private List<RdmaPort> readPorts(Path dir, String ibdev) {
    TreeMap<Integer, Path> byNumber = new TreeMap<>();
    Path portsDir = dir.resolve("ports");
    for (String name : facts.names(portsDir)) {
      Path p = portsDir.resolve(name);
      try {
        byNumber.put(Numbers.parseInt(name, 0, 255), p);
      } catch (IllegalArgumentException e) {
        facts.warn(p, "not a port number; ignored");
      }
    }
    List<RdmaPort> result = new ArrayList<>();
    byNumber.forEach((number, portDir) -> {
      if (!facts.isDirectory(portDir)) {
        facts.warn(portDir, "not a directory; port left out");
        return;
      }
      result.add(ports.read(portDir, number));
    });
    return result;
  }
}
