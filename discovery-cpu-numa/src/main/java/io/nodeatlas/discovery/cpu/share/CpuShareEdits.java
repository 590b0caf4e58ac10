package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.topology.CpuSet;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a container gets for the CPU and hugepage shares of one claim: each share's CDI device (named by
 * the agent) carries the device's own edits adjusted to the share, and the OCI hook that enforces it.
 * Pure: the claim's devices in, the same devices edited out.
 *
 * <p>For the claim as a whole (all of its shares, since the kubelet hands a container every device of
 * the requests it names, and cgroup limits are per container, not per device):
 * <ul>
 *   <li>{@code NODEATLAS_CPUS} = the CPUs of the claim's CPU shares (kernel list syntax) and
 *       {@code NODEATLAS_NUMA_NODE} = their NUMA node(s), replacing the device's own statement of its
 *       allocatable CPUs;
 *   <li>a hugepage share's hugetlbfs mount gets {@code size=<bytes>}: hugetlbfs refuses pages beyond it
 *       (Documentation/admin-guide/mm/hugetlbpage.rst, mount option {@code size});
 *   <li>one {@code createRuntime} hook (OCI runtime-spec config.md: run in the runtime namespace, after the
 *       container's cgroup exists and before the container's process runs the user's program) with
 *       {@code --cpus}, {@code --mems} and {@code --hugetlb=<page bytes>:<limit bytes>}: it writes
 *       {@code cpuset.cpus}, {@code cpuset.mems} and {@code hugetlb.<size>.max} (cgroup v2,
 *       Documentation/admin-guide/cgroup-v2.rst) or their v1 files. {@code createContainer} would run in
 *       the container's mount namespace, where the host's {@code /sys/fs/cgroup} and {@code /proc} are
 *       not to be trusted. The hook is identical on every share device of the claim, so running it
 *       once per device writes the same values again. {@code cpuset.mems} also names the nodes of the
 *       claim's hugepage shares: the kernel takes huge pages only from nodes the cpuset allows.
 * </ul>
 * Hooks exist since CDI spec 0.3.0, so they never raise the spec's {@code cdiVersion}.
 */
public final class CpuShareEdits {

  /** Seconds a runtime lets the hook run (CDI {@code hooks[].timeout}, OCI {@code timeout}). */
  static final int HOOK_TIMEOUT_SECONDS = 10;
  static final String HOOK_NAME = "createRuntime";
  static final String HOOK_ARGV0 = "nodeatlas-cpuset-hook";

  private final String hookPath;

  /** {@code hookPath}: where the hook lies on the host (runtimes run hooks on the host). */
  public CpuShareEdits(String hookPath) {
    if (hookPath == null || !hookPath.startsWith("/")) {
      throw new IllegalArgumentException("the hook path must be absolute, not " + hookPath);
    }
    this.hookPath = hookPath;
  }

  /** One share of the claim: its CDI device, what this family knows of the device, and its CPUs (none for pages). */
  record Placed(Device named, CpuShareDevice device, BigDecimal consumed, CpuSet cpus) {}

  /** The claim's devices with the shares' edits, then every CPU-stating device unified ({@link #unifyCpus}). */
  public List<Device> edit(List<ClaimDevice> claim) {
    List<Placed> placed = new ArrayList<>();
    for (ClaimDevice c : claim) {
      if (c.share().isPresent()) {
        CpuShareDevice d = CpuShareDevice.described(c.device());
        if (d.kind() != CpuShareDevice.Kind.OTHER) {
          placed.add(new Placed(c.device(), d, c.share().get().consumed(CpuShareDevice.MEMORY_CAPACITY),
              CpuSharePlacer.cpus(c.share().get().placement())));
        }
      }
    }
    List<Device> out = new ArrayList<>();
    if (placed.isEmpty()) {
      claim.forEach(c -> out.add(c.device()));
    } else {
      List<Device> edited = devices(placed);
      int i = 0;
      for (ClaimDevice c : claim) {
        out.add(i < placed.size() && placed.get(i).named() == c.device() ? edited.get(i++) : c.device());
      }
    }
    return unifyCpus(out);
  }

  /** The CDI device of each share, in the order given. */
  List<Device> devices(List<Placed> shares) {
    CpuSet cpus = CpuSet.EMPTY;
    TreeSet<Integer> cpuNodes = new TreeSet<>();
    TreeSet<Integer> memNodes = new TreeSet<>();
    Map<Long, BigDecimal> hugetlb = new TreeMap<>();
    for (Placed p : shares) {
      if (p.device().kind() == CpuShareDevice.Kind.CPU) {
        cpus = cpus.union(p.cpus());
        p.device().numaNode().ifPresent(cpuNodes::add);
      } else if (p.device().kind() == CpuShareDevice.Kind.HUGEPAGES && p.device().pageSizeBytes().isPresent()) {
        hugetlb.merge(p.device().pageSizeBytes().getAsLong(), p.consumed(), BigDecimal::add);
        p.device().numaNode().ifPresent(memNodes::add);
      }
    }
    memNodes.addAll(cpuNodes);
    List<String> args = new ArrayList<>();
    args.add(HOOK_ARGV0);
    if (!cpus.isEmpty()) {
      args.add("--cpus=" + cpus);
      if (!memNodes.isEmpty()) {
        args.add("--mems=" + list(memNodes));
      }
    }
    hugetlb.forEach((page, bytes) -> args.add("--hugetlb=" + page + ":" + bytes.toBigInteger()));
    ContainerEdits.Hook hook = args.size() > 1
        ? new ContainerEdits.Hook(HOOK_NAME, hookPath, args, List.of(), HOOK_TIMEOUT_SECONDS) : null;

    List<Device> out = new ArrayList<>();
    for (Placed p : shares) {
      ContainerEdits base = p.named().containerEdits();
      ContainerEdits.Builder e = ContainerEdits.builder();
      switch (p.device().kind()) {
        case CPU -> {
          base.env().stream()
              .filter(v -> !v.startsWith(CpuShareDevice.CPUS_ENV + "=") && !v.startsWith(CpuShareDevice.NUMA_ENV + "="))
              .forEach(e::env);
          e.env(CpuShareDevice.CPUS_ENV + "=" + cpus);
          if (!cpuNodes.isEmpty()) {
            e.env(CpuShareDevice.NUMA_ENV + "=" + list(cpuNodes));
          }
          copyAllButEnv(base, e, null);
        }
        case HUGEPAGES -> {
          base.env().forEach(e::env);
          BigDecimal bytes = p.consumed();
          copyAllButEnv(base, e, "size=" + bytes.toBigInteger());
        }
        default -> {
          base.env().forEach(e::env);
          copyAllButEnv(base, e, null);
        }
      }
      if (hook != null) {
        e.hook(hook);
      }
      Device d = p.named();
      out.add(new Device(d.name(), d.source(), d.attributes(), d.capacity(),
          d.requestPolicies(), d.allowMultipleAllocations(), e.build()));
    }
    return out;
  }

  /**
   * A claim may also hold several exclusive CPU devices: one per physical core, which the CPU source
   * publishes when the API server cannot carry shared devices. Each states its own CPUs in
   * {@code NODEATLAS_CPUS}; a container gets the edits of all of them, and of repeated env names the
   * last would win. So every device of the claim that states CPUs gets the union (and the union of
   * their {@code NODEATLAS_NUMA_NODE}s), and each carries the claim's hook restricting the cgroup to
   * that union; an existing hook of ours (a share's) has its {@code --cpus} and {@code --mems}
   * widened, its hugetlb limits kept. A claim with at most one such device is returned unchanged.
   */
  List<Device> unifyCpus(List<Device> claimDevices) {
    CpuSet cpus = CpuSet.EMPTY;
    TreeSet<Integer> nodes = new TreeSet<>();
    int stating = 0;
    for (Device d : claimDevices) {
      java.util.Optional<String> list = envValue(d, CpuShareDevice.CPUS_ENV);
      if (list.isEmpty()) {
        continue;
      }
      stating++;
      cpus = cpus.union(io.nodeatlas.discovery.parse.CpuListParser.parse(list.get()));
      envValue(d, CpuShareDevice.NUMA_ENV).ifPresent(n -> io.nodeatlas.discovery.parse.CpuListParser.parse(n).stream().forEach(nodes::add));
    }
    if (stating < 2 || cpus.isEmpty()) {
      return claimDevices;
    }
    List<Device> out = new ArrayList<>();
    for (Device d : claimDevices) {
      if (envValue(d, CpuShareDevice.CPUS_ENV).isEmpty()) {
        out.add(d);
        continue;
      }
      ContainerEdits base = d.containerEdits();
      ContainerEdits.Builder e = ContainerEdits.builder();
      base.env().stream()
          .filter(v -> !v.startsWith(CpuShareDevice.CPUS_ENV + "=") && !v.startsWith(CpuShareDevice.NUMA_ENV + "="))
          .forEach(e::env);
      e.env(CpuShareDevice.CPUS_ENV + "=" + cpus);
      if (!nodes.isEmpty()) {
        e.env(CpuShareDevice.NUMA_ENV + "=" + list(nodes));
      }
      base.deviceNodes().forEach(e::deviceNode);
      base.mounts().forEach(e::mount);
      boolean hooked = false;
      for (ContainerEdits.Hook h : base.hooks()) {
        if (h.path().equals(hookPath) && h.hookName().equals(HOOK_NAME)) {
          e.hook(widened(h, cpus, nodes));
          hooked = true;
        } else {
          e.hook(h);
        }
      }
      if (!hooked) {
        List<String> args = new ArrayList<>(List.of(HOOK_ARGV0, "--cpus=" + cpus));
        if (!nodes.isEmpty()) {
          args.add("--mems=" + list(nodes));
        }
        e.hook(new ContainerEdits.Hook(HOOK_NAME, hookPath, args, List.of(), HOOK_TIMEOUT_SECONDS));
      }
      base.netDevices().forEach(e::netDevice);
      out.add(new Device(d.name(), d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
          d.allowMultipleAllocations(), e.build()));
    }
    return out;
  }

  private static ContainerEdits.Hook widened(ContainerEdits.Hook h, CpuSet cpus, TreeSet<Integer> cpuNodes) {
    TreeSet<Integer> mems = new TreeSet<>(cpuNodes);
    List<String> args = new ArrayList<>();
    for (String a : h.args()) {
      if (a.startsWith("--mems=")) {
        io.nodeatlas.discovery.parse.CpuListParser.parse(a.substring(7)).stream().forEach(mems::add);
      } else if (!a.startsWith("--cpus=")) {
        args.add(a);
      }
    }
    List<String> out = new ArrayList<>();
    out.add(args.isEmpty() ? HOOK_ARGV0 : args.get(0));
    out.add("--cpus=" + cpus);
    if (!mems.isEmpty()) {
      out.add("--mems=" + list(mems));
    }
    out.addAll(args.subList(Math.min(1, args.size()), args.size()));
    return new ContainerEdits.Hook(h.hookName(), h.path(), out, h.env(), h.timeout());
  }

  private static java.util.Optional<String> envValue(Device d, String name) {
    // A loop, not a stream: every Prepare asks this of each device, most of which have no such entry.
    String last = null;
    for (String v : d.containerEdits().env()) {
      if (v.length() > name.length() && v.charAt(name.length()) == '=' && v.startsWith(name)) {
        last = v;
      }
    }
    return last == null ? java.util.Optional.empty() : java.util.Optional.of(last.substring(name.length() + 1));
  }

  private static void copyAllButEnv(ContainerEdits base, ContainerEdits.Builder e, String hugetlbfsOption) {
    base.deviceNodes().forEach(e::deviceNode);
    for (ContainerEdits.Mount m : base.mounts()) {
      if (hugetlbfsOption != null && "hugetlbfs".equals(m.type())) {
        List<String> options = new ArrayList<>();
        m.options().stream().filter(o -> !o.startsWith("size=")).forEach(options::add);
        options.add(hugetlbfsOption);
        e.mount(new ContainerEdits.Mount(m.hostPath(), m.containerPath(), m.type(), options));
      } else {
        e.mount(m);
      }
    }
    base.hooks().forEach(e::hook);
    base.netDevices().forEach(e::netDevice);
  }

  private static String list(TreeSet<Integer> ids) {
    return CpuSet.of(ids.stream().mapToInt(Integer::intValue).toArray()).toString();
  }
}
