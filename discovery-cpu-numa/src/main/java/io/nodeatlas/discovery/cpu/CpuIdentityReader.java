package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.CpuInfo;
import io.nodeatlas.discovery.cpu.parse.CpuInfoParser;
import io.nodeatlas.discovery.cpu.parse.CpuModalias;
import io.nodeatlas.discovery.host.FactParser;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.topology.CpuSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads what kind of CPUs the host has: the kernel's machine name and {@code /proc/cpuinfo}, both
 * under the host's procfs and sysfs roots, through {@link FactReader}.
 *
 * <p><b>Why not OSHI.</b> OSHI's {@code CentralProcessor} (oshi-core {@code LinuxCentralProcessor})
 * would be the obvious library, but it cannot be confined to a host root without global state and
 * reaches outside it: its {@code /proc} root is {@code ProcPath.PROC}, a static constant computed once
 * per JVM from the global {@code oshi.util.proc.path} setting; {@code queryProcessorId()} runs
 * {@code lscpu} (when cpuinfo has no model name or an ARM implementer id) and {@code lshw} on the
 * machine the JVM runs on; and its sysfs topology reader lists the literal {@code /sys/devices/system/cpu/}
 * or asks udev, again of the JVM's own machine. For a DaemonSet reading {@code /host-sys} and for the
 * captured snapshots our tests run on, every one of those is the wrong machine. So cpuinfo is parsed
 * here ({@link CpuInfoParser}, a pure parser), the same fields OSHI reads.
 */
final class CpuIdentityReader {

  /** A machine name as uname prints it: {@code x86_64}, {@code aarch64}, {@code ppc64le}, {@code s390x}. */
  private static final Pattern MACHINE = Pattern.compile("^[a-z0-9_]{1,32}$");

  static final FactParser<String> MACHINE_NAME = text -> {
    if (!MACHINE.matcher(text).matches()) {
      throw new IllegalArgumentException("not a machine name like x86_64");
    }
    return text;
  };

  private CpuIdentityReader() {}

  /** The identities of the host's CPUs; unknown facts stay null, broken files cost one warning each. */
  static CpuIdentities read(FactReader in) {
    // kernel.arch (Documentation/admin-guide/sysctl/kernel.rst, "arch": the machine hardware name, as
    // uname -m) where the kernel has it, then the modalias, which names aarch64 for certain.
    String machine = in.read(in.fs().proc("sys/kernel/arch"), MACHINE_NAME)
        .or(() -> in.read(in.fs().sys("devices/system/cpu/modalias"), CpuModalias::parse).flatMap(CpuModalias::machine))
        .orElse(null);
    CpuInfo info = in.readText(in.fs().proc("cpuinfo"), CpuInfoParser::parse).orElse(CpuInfo.EMPTY);
    return new CpuIdentities(info, machine);
  }

  private static boolean containsSame(List<CpuIdentity> ids, CpuIdentity id) {
    for (CpuIdentity known : ids) {
      if (known == id) {
        return true;
      }
    }
    return false;
  }

  /** The identities of one discovery, computed once per CPU on demand. */
  static final class CpuIdentities {
    private final CpuInfo info;
    private final String machine;
    private final Map<Integer, CpuIdentity> perCpu = new HashMap<>();
    /**
     * Identities by the fields they derive from: a host's CPUs are of one or two kinds, so of 256 CPUs
     * 255 reuse an identity instead of splitting their flags and collapsing their model names again.
     */
    private final Map<List<String>, CpuIdentity> byFields = new HashMap<>();

    CpuIdentities(CpuInfo info, String machine) {
      this.info = info;
      this.machine = machine;
    }

    static CpuIdentities none() {
      return new CpuIdentities(CpuInfo.EMPTY, null);
    }

    /** The identity {@code cpus} share ({@link CpuIdentity#common}). */
    CpuIdentity of(CpuSet cpus) {
      if (info.isEmpty() && machine == null) {
        return CpuIdentity.UNKNOWN;
      }
      // Each distinct identity once (CPUs of one kind share the instance): common() of a kind repeated
      // is that kind, and its cost grows with the CPUs times their flags.
      List<CpuIdentity> ids = new ArrayList<>();
      cpus.stream().forEach(cpu -> {
        CpuIdentity id = perCpu.computeIfAbsent(cpu, c -> byFields.computeIfAbsent(
            CpuIdentity.key(name -> info.field(c, name)), k -> CpuIdentity.of(info.fieldsOf(c), machine)));
        if (!containsSame(ids, id)) {
          ids.add(id);
        }
      });
      return CpuIdentity.common(ids);
    }
  }
}
