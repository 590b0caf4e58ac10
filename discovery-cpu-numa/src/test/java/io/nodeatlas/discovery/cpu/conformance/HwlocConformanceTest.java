package io.nodeatlas.discovery.cpu.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.cpu.Discover;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.testing.Conformance;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * Runs the {@code cpu-numa} source and hwloc's {@code lstopo} on every snapshot of the hwloc Linux test
 * corpus and compares packages, dies, cores, online CPUs, NUMA nodes (CPUs, memory), caches and
 * hugepages. lstopo runs exactly as the corpus' SOURCE.txt says (same environment, only the Linux
 * backend, {@code HWLOC_FSROOT} at the snapshot), with {@code --of xml} so that we read its answer as
 * data instead of scraping console text.
 *
 * <p>Where hwloc and the kernel's ABI agree, we read as hwloc does, with no rule here: packages and
 * cores are grouped by their sibling masks (ids only name them), a cache's sharers come from
 * {@code shared_cpu_map} (an all-zero map meaning the CPU's core), one bad meminfo line costs only that
 * line, and a kernel without {@code devices/system/node} shows one node 0 with all online CPUs,
 * {@code /proc/meminfo} and the global hugepage pools. {@code OddMachinesLstopoTest} checks each of
 * these on a tree of our own.
 *
 * <p>The two tools answer different questions in a few places; each difference is a RULE below,
 * applied to every snapshot alike, never a list of snapshot exceptions:
 * <ol>
 *   <li><b>cgroup view.</b> hwloc shows what the calling process may use (the snapshot's
 *       {@code proc/self/cgroup} and cpuset files); we describe the host. Our CPU sets are intersected
 *       with hwloc's {@code allowed_cpuset}, NUMA nodes outside its {@code allowed_nodeset} are dropped,
 *       and objects left with no CPU are dropped.</li>
 *   <li><b>Merged levels.</b> hwloc removes an object whose CPU set equals its parent's (a die that is
 *       the whole package) and keeps Core/PU. We list every die the kernel reports, so a die is
 *       compared only when it is smaller than its package.</li>
 *   <li><b>Inferred groups.</b> hwloc adds Group objects (from distances, clusters, s390 books) that
 *       are not packages, dies, cores, NUMA nodes or caches; they are not compared.</li>
 *   <li><b>Objects kept for memory.</b> Under a cgroup, hwloc keeps an object with no allowed CPU when
 *       it holds an allowed NUMA node (a package or L3 whose CPUs contain the node's CPUs); such
 *       objects are compared with an empty CPU set.</li>
 *   <li><b>CPU-less NUMA nodes.</b> The kernel gives HBM, CXL, NVDIMM and KNL MCDRAM nodes no CPUs,
 *       and so do we; we publish the CPUs of their best initiators ({@code access1/initiators}, the best
 *       with CPUs on kernels 5.18+, else {@code access0/initiators}) as
 *       {@code initiatorCpus}, and hwloc attaches such a node to exactly those CPUs, so they are
 *       compared. Where the initiators name no node with CPUs (an older kernel without HMAT, or a
 *       generic initiator), hwloc falls back to its own heuristics (its KNL hwdata, or the nearest
 *       nodes by distance) which the kernel does not state and we do not copy; for such a node only its
 *       id and memory are compared.</li>
 *   <li><b>Memory-side caches.</b> hwloc reports KNL MCDRAM-as-cache as an L3 with subtype
 *       {@code MemorySideCache} (from its own dumped hwdata, not from {@code cpu/cache}); it is not a
 *       CPU cache and is not compared.</li>
 *   <li><b>AMD compute units.</b> When a {@code thread_siblings} set holds CPUs with different
 *       {@code core_id} (AMD family 15h compute units) both tools split it into cores by core_id, but
 *       hwloc also widens the per-core L1i and L2 of that era's kernels to the whole compute unit. Our
 *       L1i and L2 caches inside such a unit are widened to it before comparing.</li>
 * </ol>
 */
class HwlocConformanceTest {

  private static final String LSTOPO = "lstopo-no-graphics";

  /** Each snapshot of the corpus, extracted once for all tests of the class. */
  private record Snapshot(String name, Path root) {}

  @TempDir
  static Path work;

  private static List<Snapshot> snapshots;

  @BeforeAll
  static void extractSnapshots() throws Exception {
    Path corpus = Conformance.corpus("hwloc-linux");
    List<Path> tarballs;
    try (Stream<Path> s = Files.list(corpus)) {
      tarballs = s.filter(p -> p.getFileName().toString().endsWith(".tar.bz2")).sorted().toList();
    }
    assertThat(tarballs).as("snapshots in " + corpus).isNotEmpty();
    List<Snapshot> out = new ArrayList<>();
    for (Path tarball : tarballs) {
      String name = tarball.getFileName().toString().replace(".tar.bz2", "");
      out.add(new Snapshot(name, extract(tarball, work.resolve(name))));
    }
    snapshots = List.copyOf(out);
  }

  @Test
  void everySnapshotMatchesLstopo() throws Exception {
    Conformance.requireTool("lstopo", isInstalled());
    int matched = 0;
    List<String> failures = new ArrayList<>();
    for (Snapshot snapshot : snapshots) {
      LstopoXml hwloc = hwloc(snapshot);
      DiscoveryResult result = Discover.run(HostContext.of(HostFs.of(snapshot.root())));
      Topology ours = result.topology().orElseThrow();
      List<String> diffs = compare(ours, hwloc, snapshot.root());
      if (diffs.isEmpty()) {
        matched++;
      } else {
        failures.add(snapshot.name() + ":\n    " + String.join("\n    ", diffs));
      }
    }
    System.out.printf("hwloc conformance: %d of %d snapshots match lstopo%n", matched, snapshots.size());
    failures.forEach(f -> System.out.println("  MISMATCH " + f));
    assertThat(failures).as("snapshots whose differences no documented rule explains").isEmpty();
  }

  /**
   * The one snapshot with {@code access1}: memory nodes 5-7 list generic initiator node 4 (no CPUs) in
   * {@code access0} and CPU nodes in {@code access1}. Their CPUs are those lstopo attaches each node to
   * ({@code fakememinitiators-1np2c+1npp+gi.output}: node 5 under PUs 0-1, node 6 under 4-5, NVM node 7
   * under package 0's 0-1,4-5); checked without lstopo so every run has it.
   */
  @Test
  void memoryNodesBehindAGenericInitiatorAreLocalToTheirAccess1Cpus() {
    Snapshot gi = snapshots.stream().filter(s -> s.name().equals("fakememinitiators-1np2c+1npp+gi")).findFirst()
        .orElseThrow();
    DiscoveryResult result = Discover.run(HostContext.of(HostFs.of(gi.root())));
    Map<Integer, String> local = new TreeMap<>();
    for (Topology.NumaNodeInfo n : result.topology().orElseThrow().numaNodes()) {
      if (n.memoryOnly() && n.id() >= 5) {
        local.put(n.id(), n.initiatorCpus().toString());
      }
    }
    assertThat(local).containsExactlyInAnyOrderEntriesOf(Map.of(
        5, "0-1", 6, "4-5", 7, "0-1,4-5", 8, "2-3", 9, "6-7", 10, "2-3,6-7"));
  }

  /**
   * A snapshot unpacked where other users can write is read through directory handles instead of by
   * path (no directory on the way can be trusted to stay what it was checked as): the source must
   * see exactly the same machine, devices, topology and warnings alike, on every snapshot.
   */
  @Test
  void everySnapshotReadsTheSameWhenOtherUsersCanWriteIt() throws Exception {
    List<String> differ = new ArrayList<>();
    for (Snapshot snapshot : snapshots) {
      DiscoveryResult byPath = Discover.run(HostContext.of(HostFs.of(snapshot.root())));
      Set<PosixFilePermission> mode = Files.getPosixFilePermissions(snapshot.root());
      Files.setPosixFilePermissions(snapshot.root(), PosixFilePermissions.fromString("rwxrwxrwx"));
      DiscoveryResult viaHandles;
      try {
        viaHandles = Discover.run(HostContext.of(HostFs.of(snapshot.root())));
      } finally {
        Files.setPosixFilePermissions(snapshot.root(), mode);
      }
      if (!byPath.equals(viaHandles)) {
        differ.add(snapshot.name());
      }
    }
    assertThat(differ).as("snapshots read differently through directory handles").isEmpty();
  }

  /**
   * Every attribute and capacity the source publishes on a real machine is in its catalogue, with the
   * value type it has there. Needs only the corpus, not lstopo.
   */
  @Test
  void everySnapshotsDevicesAreCatalogued() {
    CpuNumaSource source = new CpuNumaSource();
    List<String> problems = new ArrayList<>();
    int devices = 0;
    for (Snapshot snapshot : snapshots) {
      DiscoveryResult result = Discover.run(HostContext.of(HostFs.of(snapshot.root())));
      devices += result.devices().size();
      AttributeCatalogue.undocumented(source.catalogue(), result.devices())
          .forEach(p -> problems.add(snapshot.name() + ": " + p));
    }
    assertThat(devices).as("devices over all snapshots").isPositive();
    assertThat(problems).as("published names missing from the catalogue").isEmpty();
  }

  /**
   * The fewest snapshots whose CPU vendor and model name must agree with lstopo's: every snapshot of the
   * corpus where lstopo reports a CPUModel or CPUVendor (26 of 31 when written; the others are arm64 and
   * s390 captures, for which hwloc reports neither, and fake trees without cpuinfo).
   */
  static final int IDENTITY_FLOOR = 26;

  /** hwloc's raw x86 vendor strings (CPUID leaf 0) and the short names we publish for them. */
  private static final Map<String, String> VENDORS = Map.of(
      "GenuineIntel", "intel", "AuthenticAMD", "amd", "HygonGenuine", "hygon");

  /**
   * CPU identity against lstopo's CPUVendor and CPUModel infos (hwloc attaches them to each Package, or
   * the Machine): every cpu device whose CPUs lie in objects of one model name carries that name with
   * whitespace collapsed (absent when longer than the 64-byte attribute limit), and the short name of
   * one vendor; a device spanning objects that differ carries none.
   */
  @Test
  void cpuIdentityAgreesWithLstopo() throws Exception {
    Conformance.requireTool("lstopo", isInstalled());
    int compared = 0;
    int agreed = 0;
    int checks = 0;
    List<String> failures = new ArrayList<>();
    for (Snapshot snapshot : snapshots) {
      LstopoXml hwloc = hwloc(snapshot);
      DiscoveryResult result = Discover.run(HostContext.of(HostFs.of(snapshot.root())));
      Topology topology = result.topology().orElseThrow();
      List<String> diffs = new ArrayList<>();
      int snapshotChecks = 0;
      for (Device d : result.devices()) {
        if (!d.type().orElseThrow().equals("cpu")) {
          continue;
        }
        CpuSet cpus = cpusOf(d, topology).intersect(hwloc.allowedCpus());
        snapshotChecks += checkInfo(diffs, d, cpus, hwloc, "CPUModel", "cpuModel", HwlocConformanceTest::collapsed);
        snapshotChecks += checkInfo(diffs, d, cpus, hwloc, "CPUVendor", "vendor", v -> VENDORS.get(v.strip()));
      }
      if (snapshotChecks == 0) {
        continue;
      }
      compared++;
      checks += snapshotChecks;
      if (diffs.isEmpty()) {
        agreed++;
      } else {
        failures.add(snapshot.name() + ": " + String.join("; ", diffs));
      }
    }
    System.out.printf("hwloc CPU identity: %d of %d snapshots with lstopo CPUVendor/CPUModel agree (%d device checks)%n",
        agreed, compared, checks);
    failures.forEach(f -> System.out.println("  IDENTITY MISMATCH " + f));
    assertThat(failures).as("devices whose vendor or model name differ from lstopo's").isEmpty();
    assertThat(agreed).as("snapshots that agree with lstopo on CPU identity").isGreaterThanOrEqualTo(IDENTITY_FLOOR);
  }

  /** One comparison of a device's attribute with hwloc's info over the device's CPUs; returns 1 if compared. */
  private static int checkInfo(List<String> diffs, Device d, CpuSet cpus, LstopoXml hwloc, String info, String attribute,
      java.util.function.Function<String, String> expected) {
    TreeSet<String> values = new TreeSet<>();
    CpuSet covered = CpuSet.EMPTY;
    for (LstopoXml.Obj o : hwloc.objects()) {
      if (!o.type().equals("Package") && !o.type().equals("Machine")) {
        continue;
      }
      for (Element e : LstopoXml.children(o.element(), "info")) {
        if (e.getAttribute("name").equals(info) && !o.cpuset().intersect(cpus).isEmpty()) {
          values.add(e.getAttribute("value"));
          covered = covered.union(o.cpuset());
        }
      }
    }
    if (values.isEmpty() || cpus.isEmpty()) {
      return 0;
    }
    String want = values.size() == 1 && covered.containsAll(cpus) ? expected.apply(values.first()) : null;
    if (want != null && want.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 64) {
      want = null; // beyond the ResourceSlice string limit: left out with a warning
    }
    AttributeValue got = d.attributes().get(Names.ours(attribute));
    String have = got == null ? null : got.toString();
    if (got instanceof AttributeValue.StringValue sv) {
      have = sv.value();
    }
    if (!java.util.Objects.equals(want, have)) {
      diffs.add(d.name() + " " + attribute + ": ours " + have + ", lstopo " + values);
    }
    return 1;
  }

  /** A cpu device's CPUs, from the topology it was made of: its NUMA node or its package. */
  private static CpuSet cpusOf(Device d, Topology t) {
    String name = d.name();
    if (name.startsWith("cpu-numa")) {
      int id = Integer.parseInt(name.substring("cpu-numa".length()));
      return t.numaNodes().stream().filter(n -> n.id() == id).findFirst().orElseThrow().cpus();
    }
    if (name.startsWith("cpu-package")) {
      int id = Integer.parseInt(name.substring("cpu-package".length()));
      if (t.packages().isEmpty()) {
        return t.cpus().online();
      }
      return t.packages().stream().filter(p -> p.id() == id).findFirst()
          .orElse(t.packages().get(Math.min(id, t.packages().size() - 1))).cpus();
    }
    throw new AssertionError("a grouped cpu device named " + name);
  }

  private static String collapsed(String text) {
    String s = text.strip().replaceAll("\\s+", " ");
    return s.isEmpty() ? null : s;
  }

  /** lstopo's answer for a snapshot, computed once for all tests. */
  private static LstopoXml hwloc(Snapshot snapshot) throws Exception {
    LstopoXml cached = LSTOPO_CACHE.get(snapshot.name());
    if (cached == null) {
      cached = LstopoXml.parse(lstopo(snapshot.root()));
      LSTOPO_CACHE.put(snapshot.name(), cached);
    }
    return cached;
  }

  private static final Map<String, LstopoXml> LSTOPO_CACHE = new java.util.concurrent.ConcurrentHashMap<>();

  static List<String> compare(Topology ours, LstopoXml hwloc, Path root) throws IOException {
    CpuSet allowed = hwloc.allowedCpus();
    List<String> diffs = new ArrayList<>();
    // Rule 4: the host-view CPU sets of the allowed NUMA nodes that have CPUs.
    List<CpuSet> allowedNodeCpus = ours.numaNodes().stream()
        .filter(n -> hwloc.allowedNodes().contains(n.id()) && !n.cpus().isEmpty())
        .map(Topology.NumaNodeInfo::cpus).toList();
    java.util.function.Predicate<CpuSet> shown = full -> !full.intersect(allowed).isEmpty()
        || allowedNodeCpus.stream().anyMatch(full::containsAll);

    CpuSet hwlocPus = CpuSet.EMPTY;
    for (LstopoXml.Obj pu : hwloc.ofType("PU")) {
      hwlocPus = hwlocPus.union(CpuSet.of(pu.osIndex()));
    }
    check(diffs, "online CPUs", Set1(ours.cpus().online().intersect(allowed).toString()), Set1(hwlocPus.toString()));

    TreeSet<String> ourPackages = new TreeSet<>();
    for (Topology.PackageInfo p : ours.packages()) {
      CpuSet cpus = p.cpus().intersect(allowed);
      if (shown.test(p.cpus())) {
        ourPackages.add((p.id() >= 0 ? "P#" + p.id() : "P#?") + " " + cpus);
      }
    }
    TreeSet<String> hwlocPackages = new TreeSet<>();
    for (LstopoXml.Obj p : hwloc.ofType("Package")) {
      hwlocPackages.add((p.osIndex() >= 0 ? "P#" + p.osIndex() : "P#?") + " " + p.cpuset());
    }
    check(diffs, "packages", ourPackages, hwlocPackages);

    TreeSet<String> ourDies = new TreeSet<>();
    for (Topology.DieInfo d : ours.dies()) {
      CpuSet cpus = d.cpus().intersect(allowed);
      boolean wholePackage = ours.packages().stream()
          .anyMatch(p -> p.cpus().intersect(allowed).equals(cpus));
      if (shown.test(d.cpus()) && !wholePackage) {
        ourDies.add(cpus.toString());
      }
    }
    TreeSet<String> hwlocDies = new TreeSet<>();
    hwloc.ofType("Die").forEach(d -> hwlocDies.add(d.cpuset().toString()));
    check(diffs, "dies", ourDies, hwlocDies);

    TreeSet<String> ourCores = new TreeSet<>();
    for (Topology.CoreInfo c : ours.cores()) {
      CpuSet cpus = c.cpus().intersect(allowed);
      if (shown.test(c.cpus())) {
        ourCores.add(cpus.toString());
      }
    }
    TreeSet<String> hwlocCores = new TreeSet<>();
    hwloc.ofType("Core").forEach(c -> hwlocCores.add(c.cpuset().toString()));
    check(diffs, "cores", ourCores, hwlocCores);

    TreeSet<String> ourCaches = new TreeSet<>();
    List<CpuSet> computeUnits = computeUnits(root, ours.cpus().online());
    for (Topology.CacheInfo c : ours.caches()) {
      CpuSet full = c.cpus();
      if ((c.level() == 2 || (c.level() == 1 && c.type() == Topology.CacheType.INSTRUCTION))) {
        for (CpuSet unit : computeUnits) {
          if (unit.containsAll(full)) {
            full = unit; // rule 7
          }
        }
      }
      if (shown.test(full)) {
        ourCaches.add("L" + c.level() + c.type().jsonName().charAt(0) + " " + c.sizeBytes() + " " + full.intersect(allowed));
      }
    }
    TreeSet<String> hwlocCaches = new TreeSet<>();
    for (LstopoXml.Obj o : hwloc.objects()) {
      if (o.type().matches("L[0-9]i?Cache") && !"MemorySideCache".equals(o.element().getAttribute("subtype"))) {
        Element e = o.element();
        String type = switch (e.getAttribute("cache_type")) {
          case "1" -> "d";
          case "2" -> "i";
          default -> "u";
        };
        hwlocCaches.add("L" + e.getAttribute("depth") + type + " " + e.getAttribute("cache_size") + " " + o.cpuset());
      }
    }
    check(diffs, "caches", ourCaches, hwlocCaches);

    TreeSet<String> ourNodes = new TreeSet<>();
    TreeSet<String> ourPages = new TreeSet<>();
    for (Topology.NumaNodeInfo n : ours.numaNodes()) {
      if (!hwloc.allowedNodes().contains(n.id())) {
        continue;
      }
      // Rule 5: a CPU-less node is compared with its initiators' CPUs where those have any.
      String cpus = !n.cpus().isEmpty() ? n.cpus().intersect(allowed).toString()
          : !n.initiatorCpus().isEmpty() ? n.initiatorCpus().intersect(allowed).toString() : "-";
      ourNodes.add("N#" + n.id() + " cpus=" + cpus + " mem=" + n.memoryTotalBytes());
      n.hugepages().forEach(p -> ourPages.add("N#" + n.id() + " " + p.pageSizeBytes() + "=" + p.total()));
    }
    TreeSet<String> hwlocNodes = new TreeSet<>();
    TreeSet<String> hwlocPages = new TreeSet<>();
    for (LstopoXml.Obj n : hwloc.ofType("NUMANode")) {
      String mem = n.element().getAttribute("local_memory");
      boolean unattached = ours.numaNodes().stream()
          .anyMatch(o -> o.id() == n.osIndex() && o.cpus().isEmpty() && o.initiatorCpus().isEmpty());
      hwlocNodes.add("N#" + n.osIndex() + " cpus=" + (unattached ? "-" : n.cpuset()) + " mem=" + (mem.isEmpty() ? "null" : mem));
      List<Element> types = LstopoXml.children(n.element(), "page_type");
      for (int i = 1; i < types.size(); i++) {
        hwlocPages.add("N#" + n.osIndex() + " " + types.get(i).getAttribute("size") + "=" + types.get(i).getAttribute("count"));
      }
    }
    check(diffs, "NUMA nodes", ourNodes, hwlocNodes);
    check(diffs, "hugepages", ourPages, hwlocPages);
    return diffs;
  }

  /** Rule 7's compute units: thread_siblings sets whose CPUs do not share one core_id, read from the snapshot. */
  private static List<CpuSet> computeUnits(Path root, CpuSet online) throws IOException {
    List<CpuSet> units = new ArrayList<>();
    Path cpuDir = root.resolve("sys/devices/system/cpu");
    for (int cpu : online.stream().toArray()) {
      Path list = cpuDir.resolve("cpu" + cpu + "/topology/thread_siblings_list");
      Path mask = cpuDir.resolve("cpu" + cpu + "/topology/thread_siblings");
      CpuSet siblings = Files.isRegularFile(list) ? CpuListParser.parse(Files.readString(list))
          : Files.isRegularFile(mask) ? CpuMaskParser.parse(Files.readString(mask)) : CpuSet.EMPTY;
      TreeSet<String> coreIds = new TreeSet<>();
      for (int s : siblings.intersect(online).stream().toArray()) {
        Path coreId = cpuDir.resolve("cpu" + s + "/topology/core_id");
        coreIds.add(Files.isRegularFile(coreId) ? Files.readString(coreId).trim() : "?");
      }
      if (coreIds.size() > 1 && !units.contains(siblings.intersect(online))) {
        units.add(siblings.intersect(online));
      }
    }
    return units;
  }

  private static TreeSet<String> Set1(String s) {
    return new TreeSet<>(List.of(s));
  }

  private static void check(List<String> diffs, String what, TreeSet<String> ours, TreeSet<String> hwloc) {
    if (ours.equals(hwloc)) {
      return;
    }
    TreeSet<String> onlyOurs = new TreeSet<>(ours);
    onlyOurs.removeAll(hwloc);
    TreeSet<String> onlyHwloc = new TreeSet<>(hwloc);
    onlyHwloc.removeAll(ours);
    diffs.add(what + ": only ours " + abbreviate(onlyOurs) + "; only lstopo " + abbreviate(onlyHwloc));
  }

  private static String abbreviate(TreeSet<String> s) {
    List<String> l = new ArrayList<>(s);
    return l.size() > 6 ? l.subList(0, 6) + " (+" + (l.size() - 6) + " more)" : l.toString();
  }

  static boolean isInstalled() {
    try {
      Process p = new ProcessBuilder(LSTOPO, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /**
   * {@code tar -xjf} into {@code dir}; the snapshot is the one top directory inside (its name can differ
   * from the tarball's). Extracted as ours ({@code --no-same-owner}; tar run by root would keep the
   * archive's owner), so that it is read by path, as a live host's root-owned sysfs is.
   */
  static Path extract(Path tarball, Path dir) throws Exception {
    Files.createDirectories(dir);
    run(new ProcessBuilder("tar", "--no-same-owner", "-xjf", tarball.toString(), "-C", dir.toString()), "tar");
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> tops = s.filter(Files::isDirectory).toList();
      assertThat(tops).as("top directories in " + tarball).hasSize(1);
      return tops.get(0);
    }
  }

  /** SOURCE.txt's invocation, with {@code --of xml -} as the options. */
  static byte[] lstopo(Path root) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(LSTOPO, "--of", "xml", "-");
    Map<String, String> env = pb.environment();
    env.put("LANG", "C");
    env.put("LC_ALL", "C");
    env.put("HWLOC_DONT_ADD_VERSION_INFO", "1");
    env.put("HWLOC_XML_EXPORT_SUPPORT", "0");
    env.put("HWLOC_DEBUG_SORT_CHILDREN", "1");
    env.put("HWLOC_DEBUG_CHECK", "1");
    env.put("HWLOC_COMPONENTS", "linux,stop");
    env.put("HWLOC_FSROOT", root.toString());
    env.put("HWLOC_DUMPED_HWDATA_DIR", "/var/run/hwloc");
    return run(pb, "lstopo");
  }

  private static byte[] run(ProcessBuilder pb, String what) throws Exception {
    Path err = Files.createTempFile("cpu-numa-conf", ".err");
    try {
      pb.redirectError(err.toFile());
      Process p = pb.start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(what + " failed: " + Files.readString(err));
      }
      return out;
    } finally {
      Files.deleteIfExists(err);
    }
  }

  @SuppressWarnings("unused")
  private static Map<String, String> sorted(Map<String, String> m) {
    return new TreeMap<>(m);
  }
}
