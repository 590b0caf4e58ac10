package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.host.FactParser;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.parse.SizeParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * The few sysfs conventions of {@code /sys/devices/system/{cpu,node}} that this source's readers
 * share, on top of {@link FactReader}: numbered entries ({@code cpu12}, {@code node3}), CPU sets that
 * the kernel prints as a list and as a mask, small ids, and directories the kernel creates.
 */
final class SysfsFacts {

  /** The kernel's list form ({@code %*pbl}: {@code 0-7,16-23}; the empty set is an empty line). */
  static final FactParser<CpuSet> CPU_LIST = CpuListParser::parse;

  /** The kernel's mask form ({@code %*pb}: {@code 00000000,0000ff00}). */
  static final FactParser<CpuSet> CPU_MASK = FactParser.withBytes(CpuMaskParser::parse, CpuMaskParser::parsePlain);

  /** A non-negative counter ({@code nr_hugepages}, {@code cpuN/online}). */
  static final FactParser<Long> COUNT = SizeParser::parseCount;

  /**
   * A small id such as {@code core_id} or {@code physical_package_id}
   * (Documentation/ABI/stable/sysfs-devices-system-cpu); {@code -1} is allowed because s390 and POWER
   * kernels print it when they do not know the id.
   */
  static final FactParser<Integer> ID = text -> {
    long v = SizeParser.parseSigned(text);
    if (v < -1 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("id out of range: " + v);
    }
    return (int) v;
  };

  private SysfsFacts() {}

  /** One CPU set under alternative file names: list files first, then their mask twins. */
  record CpuSetFiles(List<String> names, List<FactParser<CpuSet>> parsers) {
    static CpuSetFiles of(List<String> lists, List<String> masks) {
      List<String> names = new ArrayList<>(lists);
      names.addAll(masks);
      List<FactParser<CpuSet>> parsers = new ArrayList<>();
      lists.forEach(n -> parsers.add(CPU_LIST));
      masks.forEach(n -> parsers.add(CPU_MASK));
      return new CpuSetFiles(List.copyOf(names), List.copyOf(parsers));
    }
  }

  /** The CPU set of the first of {@code files} in {@code dir} that exists and parses. */
  static Optional<CpuSet> first(FactReader in, Path dir, CpuSetFiles files) {
    return in.first(dir, files.names(), files.parsers());
  }

  /**
   * A CPU list in which the empty set is a legitimate value ({@code cpu/offline} on a host with every
   * CPU online, the {@code cpulist} of a memory-only node): an empty file is the empty set.
   */
  static Optional<CpuSet> cpuList(FactReader in, Path file) {
    return in.readText(file, CPU_LIST);
  }

  /**
   * A CPU or node list that a running kernel never prints empty ({@code cpu/online} holds at least the
   * CPU that reads it; {@code node/online} at least one node). An empty file would turn into "no CPUs"
   * or "no nodes" in what we publish, so it is a warning and an absent value, and the caller's
   * fallback ({@code instead}, named in the warning) applies.
   */
  static Optional<CpuSet> nonEmptyList(FactReader in, Path file, String never, String instead) {
    Optional<CpuSet> set = cpuList(in, file);
    if (set.isPresent() && set.get().isEmpty()) {
      in.warn(file, "empty, but a running kernel always has " + never + "; " + instead);
      return Optional.empty();
    }
    return set;
  }

  /**
   * Ids a kernel can have when it does not say ({@code cpu/kernel_max} or {@code node/possible}
   * missing): CONFIG_NR_CPUS is at most 8192 (x86 with MAXSMP, arm64, powerpc) and MAX_NUMNODES at most
   * 1024 (CONFIG_NODES_SHIFT 10).
   */
  static final int DEFAULT_CPU_IDS = 8192;

  static final int DEFAULT_NODE_IDS = 1024;

  /**
   * {@code set} within {@code allowed} (the ids this kernel can have: {@code kernel_max}, {@code possible}),
   * with one warning naming the file when it was not: a list such as {@code 0-1048575} in ten bytes
   * would otherwise cost a read of every id's files.
   */
  static CpuSet within(FactReader in, Path file, CpuSet set, CpuSet allowed, String what, String limit) {
    if (allowed.containsAll(set)) {
      return set;
    }
    CpuSet outside = set.minus(allowed);
    BitSet bits = outside.toBitSet();
    in.warn(file, "names " + what + " " + bits.nextSetBit(0) + (outside.size() > 1 ? " to " + (bits.length() - 1) : "")
        + ", which this kernel cannot have (" + limit + "); " + outside.size() + " id(s) left out");
    return set.intersect(allowed);
  }

  /** The number after {@code prefix} in an entry name such as {@code cpu12} or {@code node3}; -1 when it is not one. */
  static int numberedEntry(String name, String prefix) {
    if (!name.startsWith(prefix) || name.length() == prefix.length() || name.length() > prefix.length() + 7) {
      return -1;
    }
    int value = 0;
    for (int i = prefix.length(); i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /**
   * Whether {@code dir} is a directory we can read. A missing path or a dangling link is an absent
   * directory, silently (kernels differ in what they create). Anything else in its place (a regular
   * file, a symlink loop, a link resolving outside the host root, no permission) would silently change
   * what is published, so it costs one warning: {@code <host path>: <reason>; <consequence>}.
   */
  static boolean directory(FactReader in, Path dir, String consequence) {
    HostFs.DirectoryCheck check = in.fs().checkDirectory(dir);
    if (check.problem() != null) {
      in.warn(dir, check.problem() + "; " + consequence);
    }
    return check.directory();
  }

  /**
   * Like {@link #directory}, for a directory the kernel must have created (the directory of an online
   * NUMA node): its absence is a warning too.
   */
  static boolean requiredDirectory(FactReader in, Path dir, String consequence) {
    HostFs.DirectoryCheck check = in.fs().checkDirectory(dir);
    if (!check.directory()) {
      String reason = check.problem() != null ? check.problem() : isLink(in, dir) ? "dangling symlink" : "missing";
      in.warn(dir, reason + "; " + consequence);
    }
    return check.directory();
  }

  private static boolean isLink(FactReader in, Path path) {
    try {
      return in.fs().readLink(path).isPresent();
    } catch (HostFileException e) {
      return true;
    }
  }
}
