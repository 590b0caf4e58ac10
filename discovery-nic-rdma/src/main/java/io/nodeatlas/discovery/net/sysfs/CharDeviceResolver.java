package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.DevNumber;
import io.nodeatlas.discovery.net.parse.DevNumberParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.SysfsFormatException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Maps RDMA devices to their user-space char devices (§1.3): {@code infiniband_verbs/uverbsN/{ibdev,dev}},
 * {@code infiniband_mad/{umadN,issmN}/{ibdev,port,dev}} and {@code misc/rdma_cm/dev}. N is allocated
 * independently per class, so devices are matched by the {@code ibdev} and {@code port} files only.
 * The class directories are read first; an ibdev still without a uverbs device is looked up in its
 * parent's {@code infiniband_verbs}/{@code infiniband_mad} children, where the class devices really
 * live (old captures lack {@code /sys/class/infiniband_verbs}).
 */
public final class CharDeviceResolver {

  private static final List<String> PREFIXES = List.of("uverbs", "umad", "issm");

  private final HostFs fs;

  public CharDeviceResolver(HostFs fs) {
    this.fs = fs;
  }

  /** @param parentDirs ibdev name → its parent device's directory */
  public CharDeviceTable resolve(Map<String, Path> parentDirs, Consumer<String> warn) {
    Map<String, CharDevice> byName = new TreeMap<>(CharDeviceResolver::compareNames);
    Set<String> attempted = new TreeSet<>();
    scan(fs.sys("class/infiniband_verbs"), byName, attempted, warn);
    scan(fs.sys("class/infiniband_mad"), byName, attempted, warn);
    Set<String> withVerbs = new TreeSet<>();
    byName.values().stream().filter(d -> d.kind() == CharDevice.Kind.UVERBS).forEach(d -> withVerbs.add(d.ibdev()));
    for (Map.Entry<String, Path> e : new TreeMap<>(parentDirs).entrySet()) {
      if (!withVerbs.contains(e.getKey())) {
        scan(e.getValue().resolve("infiniband_verbs"), byName, attempted, warn);
        scan(e.getValue().resolve("infiniband_mad"), byName, attempted, warn);
      }
    }

    Map<String, CharDevice> uverbs = new HashMap<>();
    Map<String, SortedMap<Integer, CharDevice>> umad = new HashMap<>();
    Map<String, SortedMap<Integer, CharDevice>> issm = new HashMap<>();
    for (CharDevice d : byName.values()) {
      if (d.kind() == CharDevice.Kind.UVERBS) {
        CharDevice previous = uverbs.putIfAbsent(d.ibdev(), d);
        if (previous != null) {
          warn.accept(d.name() + " ignored: " + previous.name() + " already serves RDMA device " + d.ibdev());
        }
        continue;
      }
      Map<String, SortedMap<Integer, CharDevice>> target = d.kind() == CharDevice.Kind.UMAD ? umad : issm;
      CharDevice previous = target.computeIfAbsent(d.ibdev(), k -> new TreeMap<>()).putIfAbsent(d.port().getAsInt(), d);
      if (previous != null) {
        warn.accept(d.name() + " ignored: " + previous.name() + " already serves RDMA device " + d.ibdev()
            + " port " + d.port().getAsInt());
      }
    }
    return new CharDeviceTable(uverbs, umad, issm, rdmaCm(warn));
  }

  /** {@code /sys/class/misc/rdma_cm}: one global device; its minor is dynamic (MISC_DYNAMIC_MINOR), so read {@code dev}. */
  private Optional<CharDevice> rdmaCm(Consumer<String> warn) {
    SysfsAttributes a = new SysfsAttributes(fs, fs.sys("class/misc/rdma_cm"), "rdma_cm", warn);
    return a.read("dev", DevNumberParser::parse)
        .map(dev -> new CharDevice(CharDevice.Kind.RDMA_CM, "rdma_cm", "", OptionalInt.empty(), dev));
  }

  /** @param attempted names already read (or failed) through another directory: each is read once */
  private void scan(Path classDir, Map<String, CharDevice> byName, Set<String> attempted, Consumer<String> warn) {
    List<Path> entries;
    try {
      entries = fs.list(classDir);
    } catch (HostFileException e) {
      warn.accept("RDMA char devices in " + classDir + " left out: " + e.getMessage());
      return;
    }
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      String prefix = prefix(name);
      if (prefix == null || !attempted.add(name)) {
        continue; // abi_version and other class attributes; devices seen through another directory
      }
      try {
        read(entry, name, prefix, warn).ifPresent(d -> byName.put(name, d));
      } catch (HostFileException | SysfsFormatException e) {
        warn.accept(name + " left out: " + e.getMessage());
      }
    }
  }

  private Optional<CharDevice> read(Path entry, String name, String prefix, Consumer<String> warn) {
    SysfsAttributes a = new SysfsAttributes(fs, entry, name, warn);
    Optional<String> ibdev = a.read("ibdev", RdmaDeviceReader::freeText);
    Optional<DevNumber> dev = a.read("dev", DevNumberParser::parse);
    if (ibdev.isEmpty() || dev.isEmpty()) {
      // A present but broken file has already been reported; only a missing one needs saying.
      String missing = ibdev.isEmpty() ? "ibdev" : "dev";
      if (fs.isDirectory(entry) && !fs.exists(entry.resolve(missing))) {
        a.warn("left out: no " + missing + " file to map it");
      }
      return Optional.empty();
    }
    if (prefix.equals("uverbs")) {
      return Optional.of(new CharDevice(CharDevice.Kind.UVERBS, name, ibdev.get(), OptionalInt.empty(), dev.get()));
    }
    Optional<Integer> port = a.read("port", t -> Numbers.parseInt("port", t, 0, 255));
    if (port.isEmpty()) {
      if (!fs.exists(entry.resolve("port"))) {
        a.warn("left out: no port file to map it");
      }
      return Optional.empty();
    }
    CharDevice.Kind kind = prefix.equals("umad") ? CharDevice.Kind.UMAD : CharDevice.Kind.ISSM;
    return Optional.of(new CharDevice(kind, name, ibdev.get(), OptionalInt.of(port.get()), dev.get()));
  }

  /** uverbs2 before uverbs10: numeric order within a prefix keeps "first wins" meaningful. */
  static int compareNames(String a, String b) {
    // A comparator runs n log n times over thousands of names on SR-IOV nodes: no regex here.
    String pa = prefix(a);
    if (pa != null && pa.equals(prefix(b))) {
      return Integer.compare(Integer.parseInt(a, pa.length(), a.length(), 10),
          Integer.parseInt(b, pa.length(), b.length(), 10));
    }
    return a.compareTo(b);
  }

  /** {@code uverbs}, {@code umad} or {@code issm} when the name is that prefix plus 1 to 6 digits, else null. */
  static String prefix(String name) {
    for (String prefix : PREFIXES) {
      if (name.startsWith(prefix)) {
        int digits = name.length() - prefix.length();
        if (digits < 1 || digits > 6) {
          return null;
        }
        for (int i = prefix.length(); i < name.length(); i++) {
          char c = name.charAt(i);
          if (c < '0' || c > '9') {
            return null;
          }
        }
        return prefix;
      }
    }
    return null;
  }
}
