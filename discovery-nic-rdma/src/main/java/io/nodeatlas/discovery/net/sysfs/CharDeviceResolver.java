package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.DevNumber;
import io.nodeatlas.discovery.net.parse.DevNumberParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.TextValues;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Maps RDMA devices to their user-space char devices ({@code Documentation/ABI/stable/sysfs-class-infiniband}):
 * {@code infiniband_verbs/uverbsN/{ibdev,dev}}, {@code infiniband_mad/{umadN,issmN}/{ibdev,port,dev}}
 * and {@code misc/rdma_cm/dev}. N is allocated independently per class, so devices are matched by the
 * {@code ibdev} and {@code port} files only. The class directories are read first; an ibdev still
 * without a uverbs device is looked up in its parent's {@code infiniband_verbs}/{@code infiniband_mad}
 * children, where the class devices really live (old captures lack {@code /sys/class/infiniband_verbs}).
 * The MAD devices are read only when a run can publish one: an InfiniBand port needs its {@code umadN},
 * and {@code madDevices} asks for all of them; a RoCE-only node with thousands of VFs would otherwise
 * read three files and list a directory per VF for devices nothing publishes.
 */
public final class CharDeviceResolver {

  private static final List<String> PREFIXES = List.of("uverbs", "umad", "issm");

  private final FactReader facts;

  public CharDeviceResolver(FactReader facts) {
    this.facts = facts;
  }

  /** Every char device, MAD devices included; @param parentDirs ibdev name → its parent device's directory */
  public CharDeviceTable resolve(Map<String, Path> parentDirs) {
    return resolve(parentDirs, true);
  }

  /**
   * @param parentDirs ibdev name → its parent device's directory
   * @param madDevices whether to read the {@code umadN} and {@code issmN} devices too
   */
  public CharDeviceTable resolve(Map<String, Path> parentDirs, boolean madDevices) {
    HostFs fs = facts.fs();
    Map<String, CharDevice> byName = new TreeMap<>(CharDeviceResolver::compareNames);
    Set<String> attempted = new HashSet<>();
    scan(fs.sys("class/infiniband_verbs"), byName, attempted);
    if (madDevices) {
      scan(fs.sys("class/infiniband_mad"), byName, attempted);
    }
    Set<String> withVerbs = new HashSet<>();
    byName.values().stream().filter(d -> d.kind() == CharDevice.Kind.UVERBS).forEach(d -> withVerbs.add(d.ibdev()));
    for (Map.Entry<String, Path> e : new TreeMap<>(parentDirs).entrySet()) {
      if (!withVerbs.contains(e.getKey())) {
        scan(e.getValue().resolve("infiniband_verbs"), byName, attempted);
        if (madDevices) {
          scan(e.getValue().resolve("infiniband_mad"), byName, attempted);
        }
      }
    }

    Map<String, CharDevice> uverbs = new HashMap<>();
    Map<String, SortedMap<Integer, CharDevice>> umad = new HashMap<>();
    Map<String, SortedMap<Integer, CharDevice>> issm = new HashMap<>();
    for (CharDevice d : byName.values()) {
      if (d.kind() == CharDevice.Kind.UVERBS) {
        CharDevice previous = uverbs.putIfAbsent(d.ibdev(), d);
        if (previous != null) {
          facts.warn(classEntry(d), "ignored: " + previous.name() + " already serves RDMA device " + d.ibdev());
        }
        continue;
      }
      Map<String, SortedMap<Integer, CharDevice>> target = d.kind() == CharDevice.Kind.UMAD ? umad : issm;
      CharDevice previous = target.computeIfAbsent(d.ibdev(), k -> new TreeMap<>()).putIfAbsent(d.port().getAsInt(), d);
      if (previous != null) {
        facts.warn(classEntry(d), "ignored: " + previous.name() + " already serves RDMA device " + d.ibdev()
            + " port " + d.port().getAsInt());
      }
    }
    return new CharDeviceTable(uverbs, umad, issm, rdmaCm());
  }

  /**
   * {@code /sys/class/misc/rdma_cm}: one global device; its minor is dynamic (MISC_DYNAMIC_MINOR), so
   * read {@code dev}. A missing one is worth a warning (a broken one already has its own).
   */
  private Optional<CharDevice> rdmaCm() {
    Path entry = facts.fs().sys("class/misc/rdma_cm");
    Path devFile = entry.resolve("dev");
    Optional<DevNumber> dev = facts.read(devFile, DevNumberParser::parse);
    if (dev.isEmpty() && !facts.exists(devFile)) {
      facts.warn(facts.exists(entry) ? devFile : entry, "missing (is rdma_ucm loaded?): containers get no "
          + "/dev/infiniband/rdma_cm and RDMA CM applications will fail");
    }
    return dev.map(d -> new CharDevice(CharDevice.Kind.RDMA_CM, "rdma_cm", "", OptionalInt.empty(), d));
  }

  private Path classEntry(CharDevice d) {
    return facts.fs().sys((d.kind() == CharDevice.Kind.UVERBS ? "class/infiniband_verbs/" : "class/infiniband_mad/") + d.name());
  }

  /** @param attempted names already read (or failed) through another directory: each is read once */
  private void scan(Path classDir, Map<String, CharDevice> byName, Set<String> attempted) {
    for (String name : facts.names(classDir)) {
      String prefix = prefix(name);
      if (prefix == null || !attempted.add(name)) {
        continue; // abi_version and other class attributes; devices seen through another directory
      }
      read(classDir.resolve(name), name, prefix).ifPresent(d -> byName.put(name, d));
    }
  }

  private Optional<CharDevice> read(Path entry, String name, String prefix) {
    Optional<String> ibdev = facts.read(entry.resolve("ibdev"), TextValues::freeText);
    Optional<DevNumber> dev = facts.read(entry.resolve("dev"), DevNumberParser::parse);
    if (ibdev.isEmpty() || dev.isEmpty()) {
      // A present but broken file has already been reported; only a missing one needs saying.
      String missing = ibdev.isEmpty() ? "ibdev" : "dev";
      if (facts.isDirectory(entry) && !facts.exists(entry.resolve(missing))) {
        facts.warn(entry, "no " + missing + " file to map it to an RDMA device; left out");
      }
      return Optional.empty();
    }
    if (prefix.equals("uverbs")) {
      return Optional.of(new CharDevice(CharDevice.Kind.UVERBS, name, ibdev.get(), OptionalInt.empty(), dev.get()));
    }
    Optional<Integer> port = facts.read(entry.resolve("port"), t -> Numbers.parseInt(t, 0, 255));
    if (port.isEmpty()) {
      if (!facts.exists(entry.resolve("port"))) {
        facts.warn(entry, "no port file to map it to an RDMA port; left out");
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
