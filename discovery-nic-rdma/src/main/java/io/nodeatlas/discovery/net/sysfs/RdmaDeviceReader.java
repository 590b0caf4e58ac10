package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.NodeType;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.parse.BusIds;
import io.nodeatlas.discovery.net.parse.GuidParser;
import io.nodeatlas.discovery.net.parse.NodeTypeParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.SysfsFormatException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@code /sys/class/infiniband/*} (§1.1). Entries are symlinks to the real directory under the parent
 * device; everything is read from the lexically resolved directory so that its own relative links
 * ({@code device -> ../../../<BDF>}) resolve as the kernel meant. Ports come only from {@code ports/}
 * (old kernels also nest an infiniband_cm directory named after the device).
 */
public final class RdmaDeviceReader {

  /** A device plus its parent's directory, where the char-device class directories also live (§1.3). */
  public record Found(RdmaDevice device, Path dir, Path parentDir) {}

  private final HostFs fs;
  private final PortReader ports;

  public RdmaDeviceReader(HostFs fs, PortReader ports) {
    this.fs = fs;
    this.ports = ports;
  }

  public List<Found> readAll(Consumer<String> warn) {
    List<Found> found = new ArrayList<>();
    List<Path> entries;
    try {
      entries = fs.list(fs.sys("class/infiniband"));
    } catch (HostFileException e) {
      warn.accept("RDMA devices left out: " + e.getMessage());
      return found;
    }
    for (Path entry : entries) {
      try {
        read(entry, warn).ifPresent(found::add);
      } catch (HostFileException | SysfsFormatException e) {
        warn.accept("RDMA device " + entry.getFileName() + " left out: " + e.getMessage());
      }
    }
    return found;
  }

  public Optional<Found> read(Path entry, Consumer<String> warn) {
    String name = entry.getFileName().toString();
    Path dir = fs.resolveLink(entry).orElse(entry);
    if (!fs.isDirectory(dir)) {
      warn.accept("RDMA device " + name + " left out: its sysfs directory " + dir + " is missing");
      return Optional.empty();
    }
    Optional<Path> parent = fs.resolveLink(dir.resolve("device"));
    Optional<String> bdf = parent.flatMap(BusIds::nearestBdf);
    if (bdf.isEmpty()) {
      // Soft devices (rxe, siw, scif) have no PCI function to allocate or align (§1.1).
      warn.accept("RDMA device " + name + " left out: not backed by a PCI function"
          + parent.map(p -> " (parent " + p.getFileName() + ")").orElse(""));
      return Optional.empty();
    }
    SysfsAttributes a = new SysfsAttributes(fs, dir, "RDMA device " + name, warn);
    NodeType nodeType = a.read("node_type", NodeTypeParser::parse).orElse(NodeType.UNKNOWN);
    RdmaDevice device = new RdmaDevice(
        name,
        bdf.get(),
        nodeType,
        a.read("node_guid", t -> GuidParser.parse("node_guid", t)),
        a.read("sys_image_guid", t -> GuidParser.parse("sys_image_guid", t)),
        a.read("fw_ver", RdmaDeviceReader::freeText),
        a.read("hca_type", RdmaDeviceReader::freeText),
        a.read("board_id", RdmaDeviceReader::freeText),
        readPorts(dir, name, a, warn));
    return Optional.of(new Found(device, dir, parent.get()));
  }

  private List<RdmaPort> readPorts(Path dir, String ibdev, SysfsAttributes a, Consumer<String> warn) {
    TreeMap<Integer, Path> byNumber = new TreeMap<>();
    try {
      for (Path p : fs.list(dir.resolve("ports"))) {
        try {
          byNumber.put(Numbers.parseInt("port", p.getFileName().toString(), 0, 255), p);
        } catch (SysfsFormatException e) {
          a.warn("port entry \"" + p.getFileName() + "\" ignored: not a port number");
        }
      }
    } catch (HostFileException e) {
      a.warn("ports left out: " + e.getMessage());
      return List.of();
    }
    List<RdmaPort> result = new ArrayList<>();
    byNumber.forEach((number, portDir) -> {
      if (!fs.isDirectory(portDir)) {
        a.warn("port " + number + " left out: " + portDir + " is not a directory");
        return;
      }
      try {
        result.add(ports.read(portDir, ibdev, number, warn));
      } catch (HostFileException | SysfsFormatException e) {
        a.warn("port " + number + " left out: " + e.getMessage());
      }
    });
    return result;
  }

  /** Driver-defined text (fw_ver, hca_type, board_id): kept when printable. */
  static String freeText(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new SysfsFormatException("value contains a control character");
      }
    }
    return text;
  }
}
