package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.parse.BusIds;
import io.nodeatlas.discovery.net.parse.InterfaceNames;
import io.nodeatlas.discovery.net.parse.MacAddressParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.SysfsFormatException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * {@code /sys/class/net/<if>} (§2.1). Entries are symlinks into the device tree; the regular file
 * {@code bonding_masters} is not an interface. Virtual versus physical is decided lexically from the
 * link (captures have dangling {@code virtual/net} targets, so real-path resolution would throw).
 */
public final class NetInterfaceReader {

  /** The link path plus the directory it led to, so callers can find the parent device without re-reading. */
  public record Found(NetInterface netInterface, Path dir, Optional<Path> deviceDir) {}

  private final HostFs fs;

  public NetInterfaceReader(HostFs fs) {
    this.fs = fs;
  }

  /** Every interface, sorted by name; virtual ones only when {@code includeVirtual}. */
  public List<Found> readAll(boolean includeVirtual, Consumer<String> warn) {
    List<Found> found = new ArrayList<>();
    List<Path> entries;
    try {
      entries = fs.list(fs.sys("class/net"));
    } catch (HostFileException e) {
      warn.accept("network interfaces left out: " + e.getMessage());
      return found;
    }
    for (Path entry : entries) {
      try {
        read(entry, includeVirtual, warn).ifPresent(found::add);
      } catch (HostFileException | SysfsFormatException e) {
        warn.accept("interface " + entry.getFileName() + " left out: " + e.getMessage());
      }
    }
    return found;
  }

  /** One {@code class/net} entry; empty for non-interfaces and for virtual ones not asked for. */
  public Optional<Found> read(Path entry, boolean includeVirtual, Consumer<String> warn) {
    String name = entry.getFileName().toString();
    Optional<Path> target = fs.resolveLink(entry);
    Path dir;
    if (target.isPresent()) {
      dir = target.get();
    } else if (fs.isDirectory(entry)) {
      dir = entry;
    } else {
      return Optional.empty(); // bonding_masters and other class attributes
    }
    if (!InterfaceNames.isValid(name)) {
      warn.accept("interface \"" + name + "\" left out: not a valid interface name");
      return Optional.empty();
    }
    boolean underVirtual = underVirtual(dir);
    if (underVirtual && !includeVirtual) {
      return Optional.empty();
    }
    if (!fs.isDirectory(dir)) {
      warn.accept("interface " + name + " left out: its sysfs directory " + dir + " is missing");
      return Optional.empty();
    }
    Optional<Path> deviceDir = fs.resolveLink(dir.resolve("device"));
    boolean virtual = underVirtual || deviceDir.isEmpty();
    if (virtual && !includeVirtual) {
      return Optional.empty();
    }
    Optional<String> bdf = deviceDir.flatMap(BusIds::nearestBdf);
    SysfsAttributes a = new SysfsAttributes(fs, dir, "interface " + name, warn);
    NetInterface nic = new NetInterface(
        name,
        virtual,
        bdf,
        optionalInt(a.read("type", t -> Numbers.parseInt("type", t, 0, 65535))),
        a.read("address", MacAddressParser::parse),
        optionalInt(a.read("mtu", t -> Numbers.parseInt("mtu", t, 0, Integer.MAX_VALUE))),
        a.read("operstate", NetInterfaceReader::operState),
        // speed fails with EINVAL on a down link and prints -1 when unknown (§2.1).
        a.readMayFail("speed", t -> Numbers.parseDecimal("speed", t, -1, Integer.MAX_VALUE))
            .filter(s -> s > 0)
            .map(OptionalLong::of)
            .orElse(OptionalLong.empty()),
        optionalInt(a.readMayFail("dev_port", t -> Numbers.parseInt("dev_port", t, 0, 65535))),
        a.readMayFail("phys_port_name", NetInterfaceReader::token),
        a.readMayFail("phys_switch_id", NetInterfaceReader::token),
        fs.isDirectory(dir.resolve("bridge")));
    return Optional.of(new Found(nic, dir, deviceDir));
  }

  private boolean underVirtual(Path dir) {
    Path sysfs = fs.sysfsRoot();
    return dir.startsWith(sysfs) && sysfs.relativize(dir).startsWith(Path.of("devices", "virtual"));
  }

  private static OptionalInt optionalInt(Optional<Integer> value) {
    return value.map(OptionalInt::of).orElse(OptionalInt.empty());
  }

  /** {@code operstate} values of RFC 2863 as the kernel prints them. */
  static String operState(String text) {
    return switch (text) {
      case "unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up" -> text;
      default -> throw new SysfsFormatException("operstate \"" + text + "\" is not an RFC 2863 state");
    };
  }

  /** phys_port_name and phys_switch_id: short printable tokens (switch ids are hex, names like {@code p0}). */
  static String token(String text) {
    if (text.length() > 64) {
      throw new SysfsFormatException("value of " + text.length() + " characters is longer than 64");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        throw new SysfsFormatException("value contains a non-printable character");
      }
    }
    return text;
  }
}
