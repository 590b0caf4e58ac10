package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.LdSoCacheParser.Entry;
import io.nodeatlas.discovery.gpu.LdSoCacheParser.LdSoCache;
import io.nodeatlas.discovery.gpu.MigMinorsParser.MigMinors;
import io.nodeatlas.discovery.gpu.ProcDevicesParser.CharMajors;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.ContainerEdits.Mount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The host files that NVML does not cover, all read through a {@link FactReader}: the character
 * majors in {@code /proc/devices}, the MIG capability minors, which {@code /dev} nodes exist, and the
 * driver's user-space files under the driver root. Each broken fact costs one warning of the form
 * {@code <host path>: <reason>}. One instance serves one discovery run.
 */
final class NvidiaHostFiles {

  /**
   * Where libraries are looked for under the driver root when its {@code /etc/ld.so.cache} does not
   * name them (no cache, as in some driver containers, or one not rebuilt since the install): the
   * directories NVIDIA's DRA driver ({@code k8s-dra-driver-gpu}, {@code cmd/gpu-kubelet-plugin})
   * searches for {@code libnvidia-ml.so.1}, Debian's packaged-driver directories, and the loader's
   * plain system directories {@code /usr/lib} and {@code /lib}.
   */
  static final List<String> LIBRARY_DIRS = List.of(
      "", "usr/lib64", "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib64",
      "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib/x86_64-linux-gnu/nvidia/current",
      "usr/lib/aarch64-linux-gnu/nvidia/current", "usr/lib", "lib");

  /**
   * The compute and utility libraries a CUDA container needs (libnvidia-container's
   * {@code utility_libs} and {@code compute_libs} in {@code src/nvc_info.c}), mounted by their full
   * driver version as the container toolkit does.
   */
  static final List<String> LIBRARIES = List.of(
      "libcuda", "libcudadebugger", "libnvidia-allocator", "libnvidia-cfg", "libnvidia-gpucomp",
      "libnvidia-ml", "libnvidia-nvvm", "libnvidia-opencl", "libnvidia-pkcs11", "libnvidia-pkcs11-openssl3",
      "libnvidia-ptxjitcompiler");

  /** The loader's index under the driver root (glibc's {@code ldconfig} writes it; see {@link LdSoCacheParser}). */
  static final String LD_SO_CACHE = "/etc/ld.so.cache";

  /**
   * A driver version that can be part of a file name as it is: a digit first, then letters, digits,
   * dots, {@code _}, {@code +} and {@code -} (no slash, so never a path), at most 64 characters.
   */
  static final Pattern VERSION_IN_FILE_NAME = Pattern.compile("[0-9][0-9A-Za-z._+-]{0,63}");

  static final List<String> BINARY_DIRS = List.of("usr/bin", "bin", "usr/sbin");

  static final List<String> BINARIES = List.of(
      "nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server");

  /**
   * Fixed minors of the control devices on the {@code nvidia} major: {@code nvidiactl} is 255 and
   * {@code nvidia-modeset} 254 (nvidia-modprobe's {@code nvidia-modprobe-utils.h},
   * {@code NV_CTL_DEVICE_MINOR} and {@code NV_MODESET_MINOR}).
   */
  static final int CTL_MINOR = 255;
  static final int MODESET_MINOR = 254;

  private final FactReader facts;
  private final FactReader driverFiles;
  private final String driverRoot;
  private final String readRoot;
  private final int libc6Flags;
  private CharMajors majors;
  private MigMinors migMinors;
  private List<Mount> driverMounts;
  private final Map<String, Optional<Path>> realDirectories = new HashMap<>();

  /**
   * @param facts reads {@code /proc} and {@code /dev}
   * @param driverFiles reads under the driver root (its file system may have the driver root as an
   *     extra root, see {@link NvmlLibraryLocator#driverFs})
   * @param driverRoot the driver root as the host names it ({@code /} or {@code /run/nvidia/driver}):
   *     the mounts' host paths lie under it
   * @param readRoot the driver root as {@code driverFiles}' file system names it (the same, or {@code /}
   *     of a container driver root, see {@link NvmlLibraryLocator#readRoot})
   * @param libc6Flags the ld.so.cache flags of the host's 64-bit libraries ({@link LdSoCacheParser#libc6Flags})
   */
  NvidiaHostFiles(FactReader facts, FactReader driverFiles, String driverRoot, String readRoot, int libc6Flags) {
    this.facts = facts;
    this.driverFiles = driverFiles;
    this.driverRoot = driverRoot;
    this.readRoot = readRoot;
    this.libc6Flags = libc6Flags;
  }

  /** {@code /proc/devices}, read once; a malformed line costs that line. */
  CharMajors majors() {
    if (majors == null) {
      majors = ProcDevicesParser.of(facts.lines(procDevices(), ProcDevicesParser::line));
    }
    return majors;
  }

  /** {@code /proc/driver/nvidia-caps/mig-minors}, read once (only when there are MIG devices). */
  MigMinors migMinors() {
    if (migMinors == null) {
      Path file = migMinorsFile();
      migMinors = MigMinorsParser.of(facts.lines(file, MigMinorsParser::line));
      if (migMinors.minors().isEmpty()) {
        facts.warn(file, "missing or without capabilities; MIG devices get no capability device nodes");
      }
    }
    return migMinors;
  }

  /** A problem with what {@code mig-minors} says, in the one warning format. */
  void warnMigMinors(String reason) {
    facts.warn(migMinorsFile(), reason);
  }

  private Path migMinorsFile() {
    return facts.fs().proc("driver/nvidia-caps/mig-minors");
  }

  private Path procDevices() {
    return facts.fs().proc("devices");
  }

  /** Whether {@code /dev/<name>} exists on the host (a dangling link, or one leading out of the roots, does not). */
  boolean devExists(String name) {
    return facts.exists(facts.fs().dev(name));
  }

  /** A character node; without a known major the runtime is left to stat the host node. */
  static DeviceNode charNode(String path, Optional<Integer> major, int minor) {
    return major.map(m -> DeviceNode.charDevice(path, m, minor))
        .orElseGet(() -> new DeviceNode(path, null, null, null, null, null, null, null, null));
  }

  /** {@code /dev/nvidia<minor>} when present on the host; warns once per GPU when it is not. */
  Optional<DeviceNode> gpuNode(int minor) {
    String name = "nvidia" + minor;
    if (!devExists(name)) {
      facts.warn(facts.fs().dev(name), "does not exist; containers of gpu-" + minor + " get no GPU device node");
      return Optional.empty();
    }
    return Optional.of(charNode("/dev/" + name, majors().nvidiaMajor(), minor));
  }

  /** The control devices that exist: {@code nvidiactl}, {@code nvidia-uvm}, {@code nvidia-uvm-tools}, {@code nvidia-modeset}. */
  List<DeviceNode> controlNodes() {
    List<DeviceNode> nodes = new ArrayList<>();
    Optional<Integer> nvidia = majors().nvidiaMajor();
    Optional<Integer> uvm = majors().major("nvidia-uvm");
    if (devExists("nvidiactl")) {
      nodes.add(charNode("/dev/nvidiactl", nvidia, CTL_MINOR));
    }
    if (devExists("nvidia-uvm")) {
      nodes.add(charNode("/dev/nvidia-uvm", uvm, 0));
    }
    if (devExists("nvidia-uvm-tools")) {
      nodes.add(charNode("/dev/nvidia-uvm-tools", uvm, 1));
    }
    if (devExists("nvidia-modeset")) {
      nodes.add(charNode("/dev/nvidia-modeset", nvidia, MODESET_MINOR));
    }
    return nodes;
  }

  /**
   * A MIG capability node {@code /dev/nvidia-caps/nvidia-cap<minor>}. The node need not exist on the
   * host (nvidia-modprobe creates it on demand), so type, major and minor are always given; without
   * the {@code nvidia-caps} major that is impossible and the node is left out with a warning.
   */
  Optional<DeviceNode> capNode(int capMinor, String device) {
    Optional<Integer> major = majors().major("nvidia-caps");
    String path = "/dev/nvidia-caps/nvidia-cap" + capMinor;
    if (major.isEmpty()) {
      if (devExists("nvidia-caps/nvidia-cap" + capMinor)) {
        return Optional.of(charNode(path, major, capMinor));
      }
      facts.warn(procDevices(), "no nvidia-caps major; " + device + " gets no " + path);
      return Optional.empty();
    }
    return Optional.of(DeviceNode.charDevice(path, major.get(), capMinor));
  }

  /**
   * The driver's libraries and tools as read-only bind mounts at the same path in the container,
   * found under the driver root. Each library is looked up as the loader would: in the directories
   * the driver root's {@code ld.so.cache} names for its SONAME ({@code libcuda.so.1},
   * {@code libnvidia-nvvm.so.4}), else, or when nothing is left there, in {@link #LIBRARY_DIRS}
   * (SONAME {@code .so.1}). In each such directory {@code <lib>.so.<driverVersion>} and the SONAME
   * link are mounted (a bind mount follows the link, so the container sees the SONAME without an
   * ldconfig hook). Each binary is mounted once, from the first of {@link #BINARY_DIRS} that has it.
   * A directory reached twice through a link ({@code /lib} is {@code usr/lib} on merged-/usr
   * systems) counts once. Computed once per discovery.
   */
  List<Mount> driverMounts(Optional<String> driverVersion) {
    if (driverMounts == null) {
      List<Mount> mounts = new ArrayList<>();
      driverVersion.ifPresent(reported -> {
        // The version names files (libcuda.so.<version>): NVML's answer is used only as one plain
        // file-name part; anything else mounts the SONAME links alone.
        String version = reported;
        if (!VERSION_IN_FILE_NAME.matcher(reported).matches()) {
          facts.warn("driver version " + Excerpt.of(reported) + " cannot be part of a file name; the driver's "
              + "libraries are mounted by their SONAME links only");
          version = null;
        }
        Optional<LdSoCache> cache = ldSoCache();
        for (String lib : LIBRARIES) {
          Set<Path> seen = new HashSet<>();
          int before = mounts.size();
          for (Entry entry : cache.map(c -> c.findLibrary(lib, libc6Flags)).orElse(List.of())) {
            // The SONAME link the loader opens (libcuda.so.1, libnvidia-nvvm.so.4) and the file
            // named by the driver version beside it; once per directory.
            String dir = entry.directory().substring(1);
            if (firstVisit(dir, seen)) {
              addVersioned(mounts, dir, lib, version);
              if (!entry.soname().equals(lib + ".so." + version)) {
                addIfPresent(mounts, dir, entry.soname());
              }
            }
          }
          if (mounts.size() == before) {
            // Not in the cache, or only where nothing is any more (a cache ldconfig has not rebuilt
            // since the driver changed): the usual directories.
            for (String dir : LIBRARY_DIRS) {
              if (firstVisit(dir, seen)) {
                addVersioned(mounts, dir, lib, version);
                addIfPresent(mounts, dir, lib + ".so.1");
              }
            }
          }
        }
      });
      for (String bin : BINARIES) {
        for (String dir : BINARY_DIRS) {
          if (addIfPresent(mounts, dir, bin)) {
            break;
          }
        }
      }
      driverMounts = List.copyOf(mounts);
    }
    return driverMounts;
  }

  /** {@code <lib>.so.<version>} when the version may name a file. */
  private void addVersioned(List<Mount> mounts, String dir, String lib, String version) {
    if (version != null) {
      addIfPresent(mounts, dir, lib + ".so." + version);
    }
  }

  /** The driver root's ld.so.cache; empty when it has none or it is not understood (one warning). */
  private Optional<LdSoCache> ldSoCache() {
    Path file = ldSoCacheFile(driverFiles.fs(), readRoot);
    Optional<LdSoCache> cache = driverFiles.readBinary(file, LdSoCacheParser::parse);
    cache.filter(c -> c.skipped() > 0).ifPresent(c -> driverFiles.warn(file, c.skipped()
        + " entries with a malformed name or path left out"));
    return cache;
  }

  /** Whether the directory exists and its real path is not in {@code seen} yet (then it is added). */
  private boolean firstVisit(String dir, Set<Path> seen) {
    return realDirectories.computeIfAbsent(dir, this::realDirectory).map(seen::add).orElse(false);
  }

  /** A directory's real path, once per discovery: one look and at most one warning for all libraries. */
  private Optional<Path> realDirectory(String dir) {
    Path local = driverFiles.fs().fromHostPath(under(readRoot, "/" + dir));
    try {
      return driverFiles.fs().realPath(local);
    } catch (HostFileException e) {
      driverFiles.warn(local, e.reason());
      return Optional.empty();
    }
  }

  private boolean addIfPresent(List<Mount> mounts, String dir, String file) {
    String containerPath = "/" + (dir.isEmpty() ? file : dir + "/" + file);
    String hostPath = hostPath(containerPath);
    Path local = driverFiles.fs().fromHostPath(under(readRoot, containerPath));
    try {
      if (driverFiles.fs().realPath(local).isPresent()) {
        mounts.add(Mount.readOnlyBind(hostPath, containerPath));
        return true;
      }
    } catch (HostFileException e) {
      // A link that leads out of the host and driver roots is not mounted: the runtime would follow it.
      driverFiles.warn(local, e.reason());
    }
    return false;
  }

  /** A path inside the driver installation as the host sees it ({@code /run/nvidia/driver/usr/bin/nvidia-smi}). */
  String hostPath(String pathInDriverRoot) {
    return under(driverRoot, pathInDriverRoot);
  }

  /** The driver root's {@code /etc/ld.so.cache}, {@code readRoot} as {@code fs} names the driver root. */
  static Path ldSoCacheFile(HostFs fs, String readRoot) {
    return fs.fromHostPath(under(readRoot, LD_SO_CACHE));
  }

  /** {@code pathInDriverRoot} (absolute) under {@code root}: {@code /run/nvidia/driver} + {@code /usr/lib/x}. */
  static String under(String root, String pathInDriverRoot) {
    return (root.endsWith("/") ? root.substring(0, root.length() - 1) : root) + pathInDriverRoot;
  }
}
