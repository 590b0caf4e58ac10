package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.MigMinorsParser.MigMinors;
import io.nodeatlas.discovery.gpu.ProcDevicesParser.CharMajors;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PcieRoots;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.ContainerEdits.Mount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * The host files that NVML does not cover, all read through {@link HostFs}: the PCI device's NUMA
 * node and root complex in sysfs, the character majors in {@code /proc/devices}, the MIG
 * capability minors, which {@code /dev} nodes exist, and the driver's user-space files under the
 * driver root. Each broken file costs one warning.
 */
final class NvidiaHostFiles {

  /** Lib directories under the driver root, in the order NVIDIA's DRA driver searches them (nvml.md §1.1). */
  static final List<String> LIBRARY_DIRS = List.of(
      "", "usr/lib64", "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib64",
      "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu");

  /**
   * The compute and utility libraries a CUDA container needs (libnvidia-container's utility and
   * compute lists, nvml.md §3.3), mounted by their full driver version as the toolkit does.
   */
  static final List<String> LIBRARIES = List.of(
      "libcuda", "libcudadebugger", "libnvidia-allocator", "libnvidia-cfg", "libnvidia-gpucomp",
      "libnvidia-ml", "libnvidia-nvvm", "libnvidia-opencl", "libnvidia-pkcs11", "libnvidia-pkcs11-openssl3",
      "libnvidia-ptxjitcompiler");

  static final List<String> BINARY_DIRS = List.of("usr/bin", "bin", "usr/sbin");

  static final List<String> BINARIES = List.of(
      "nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server");

  /** Fixed minors of the control devices on major {@code nvidia} / {@code nvidia-uvm} (nvml.md §3.1). */
  static final int CTL_MINOR = 255;
  static final int MODESET_MINOR = 254;

  private final HostFs fs;
  private final String driverRoot;
  private final Consumer<String> warn;
  private CharMajors majors;
  private MigMinors migMinors;
  private List<Mount> driverMounts;

  NvidiaHostFiles(HostFs fs, String driverRoot, Consumer<String> warn) {
    this.fs = fs;
    this.driverRoot = driverRoot;
    this.warn = warn;
  }

  /** {@code /sys/bus/pci/devices/<bdf>/numa_node}; -1 ("no affinity") and absence both mean none. */
  OptionalInt numaNode(String busId) {
    Path file = fs.sys("bus/pci/devices/" + busId + "/numa_node");
    try {
      Optional<String> value = fs.readValue(file);
      if (value.isEmpty()) {
        return OptionalInt.empty();
      }
      int node = Integer.parseInt(value.get());
      return node < 0 ? OptionalInt.empty() : OptionalInt.of(node);
    } catch (NumberFormatException e) {
      warn.accept(file + ": not a NUMA node number: \"" + fs.readValue(file).orElse("") + "\"");
      return OptionalInt.empty();
    } catch (HostFileException e) {
      warn.accept(e.getMessage());
      return OptionalInt.empty();
    }
  }

  /** The PCIe root complex by the rule every PCI source shares ({@link PcieRoots}, nvml.md §2). */
  Optional<String> pcieRoot(String busId) {
    try {
      Optional<String> root = PcieRoots.of(fs, busId);
      if (root.isEmpty() && fs.readLink(fs.sys("bus/pci/devices/" + busId)).isPresent()) {
        warn.accept(fs.sys("bus/pci/devices/" + busId) + ": link does not lead to a host bridge under devices/, no PCIe root");
      }
      return root;
    } catch (HostFileException e) {
      warn.accept(e.getMessage());
      return Optional.empty();
    }
  }

  CharMajors majors() {
    if (majors == null) {
      Path file = fs.proc("devices");
      try {
        majors = ProcDevicesParser.parse(fs.readLines(file));
        if (majors.badLines() > 0) {
          warn.accept(file + ": " + majors.badLines() + " line(s) not understood");
        }
      } catch (HostFileException e) {
        warn.accept(e.getMessage());
        majors = ProcDevicesParser.parse(List.of());
      }
    }
    return majors;
  }

  MigMinors migMinors() {
    if (migMinors == null) {
      Path file = fs.proc("driver/nvidia-caps/mig-minors");
      try {
        List<String> lines = fs.readLines(file);
        if (lines.isEmpty()) {
          warn.accept(file + " is missing or empty: MIG devices get no capability device nodes");
        }
        migMinors = MigMinorsParser.parse(lines);
        if (migMinors.badLines() > 0) {
          warn.accept(file + ": " + migMinors.badLines() + " line(s) not understood");
        }
      } catch (HostFileException e) {
        warn.accept(e.getMessage());
        migMinors = MigMinorsParser.parse(List.of());
      }
    }
    return migMinors;
  }

  /** Whether {@code /dev/<name>} exists on the host (a dangling link does not). */
  boolean devExists(String name) {
    return fs.exists(fs.dev(name));
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
      warn.accept("/dev/" + name + " does not exist on the host: containers of gpu-" + minor + " get no GPU device node");
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
  Optional<DeviceNode> capNode(int capMinor, String what) {
    Optional<Integer> major = majors().major("nvidia-caps");
    String path = "/dev/nvidia-caps/nvidia-cap" + capMinor;
    if (major.isEmpty()) {
      if (fs.exists(fs.dev("nvidia-caps/nvidia-cap" + capMinor))) {
        return Optional.of(charNode(path, major, capMinor));
      }
      warn.accept("no nvidia-caps major in /proc/devices: " + what + " gets no " + path);
      return Optional.empty();
    }
    return Optional.of(DeviceNode.charDevice(path, major.get(), capMinor));
  }

  /**
   * The driver's libraries and tools as read-only bind mounts at the same path in the container,
   * found under the driver root: {@code <lib>.so.<driverVersion>} plus its {@code .so.1} SONAME link
   * (a bind mount follows the link, so the container sees the SONAME without an ldconfig hook), and
   * the binaries. Computed once per discovery.
   */
  List<Mount> driverMounts(Optional<String> driverVersion) {
    if (driverMounts == null) {
      List<Mount> mounts = new ArrayList<>();
      try {
        driverVersion.ifPresent(version -> {
          for (String dir : LIBRARY_DIRS) {
            for (String lib : LIBRARIES) {
              addIfPresent(mounts, dir, lib + ".so." + version);
              addIfPresent(mounts, dir, lib + ".so.1");
            }
          }
        });
        for (String dir : BINARY_DIRS) {
          for (String bin : BINARIES) {
            addIfPresent(mounts, dir, bin);
          }
        }
      } catch (HostFileException e) {
        warn.accept(e.getMessage());
      }
      driverMounts = List.copyOf(mounts);
    }
    return driverMounts;
  }

  private void addIfPresent(List<Mount> mounts, String dir, String file) {
    String containerPath = "/" + (dir.isEmpty() ? file : dir + "/" + file);
    String hostPath = hostPath(containerPath);
    Path local = fs.fromHostPath(hostPath);
    if (fs.exists(local)) {
      mounts.add(Mount.readOnlyBind(hostPath, containerPath));
    }
  }

  /** A path inside the driver installation as the host sees it ({@code /run/nvidia/driver/usr/bin/nvidia-smi}). */
  String hostPath(String pathInDriverRoot) {
    String root = driverRoot.endsWith("/") ? driverRoot.substring(0, driverRoot.length() - 1) : driverRoot;
    return root + pathInDriverRoot;
  }
}
