package io.nodeatlas.discovery.cpu;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What kind of CPU a logical CPU is, derived purely from its {@code /proc/cpuinfo} fields and the
 * kernel's machine name: the facts a DeviceClass selects CPUs by. Every field is null when unknown;
 * {@link #features} holds the ISA's feature booleans, and only the ISA's (x86: {@code avx2},
 * {@code avx512f}, {@code amxTile}; arm64: {@code sve}).
 *
 * @param architecture the kernel's machine name ({@code uname -m}): {@code x86_64}, {@code aarch64}, ...
 * @param vendor a lower-case short vendor name: {@code intel}, {@code amd}, {@code arm}, {@code ampere}, ...
 * @param modelName the model name with whitespace collapsed
 * @param family x86 {@code cpu family}
 * @param model x86 {@code model}
 * @param stepping x86 {@code stepping}
 * @param microarchitecture a lower-case core design name where the table below knows it
 * @param features feature name (as published, without domain) to whether the CPU has it
 */
record CpuIdentity(
    String architecture,
    String vendor,
    String modelName,
    Integer family,
    Integer model,
    Integer stepping,
    String microarchitecture,
    Map<String, Boolean> features) {

  static final CpuIdentity UNKNOWN = new CpuIdentity(null, null, null, null, null, null, null, Map.of());

  /** x86 {@code flags} word to the published feature name (arch/x86/include/asm/cpufeatures.h names). */
  static final Map<String, String> X86_FEATURES = orderedMap("avx2", "avx2", "avx512f", "avx512f", "amx_tile", "amxTile");
  /** arm64 {@code Features} word to the published name (arch/arm64/kernel/cpuinfo.c hwcap_str). */
  static final Map<String, String> ARM64_FEATURES = orderedMap("sve", "sve");

  /**
   * x86 {@code vendor_id} (the CPUID leaf 0 string) to a short name; the kernel's own vendor table
   * ({@code c_ident} of arch/x86/kernel/cpu/{intel,amd,hygon,zhaoxin,centaur}.c).
   */
  private static final Map<String, String> X86_VENDORS = Map.of(
      "GenuineIntel", "intel",
      "AuthenticAMD", "amd",
      "HygonGenuine", "hygon",
      "Shanghai", "zhaoxin",
      "CentaurHauls", "centaur");

  /** arm64 {@code CPU implementer} to a short name: ARM_CPU_IMP_* of arch/arm64/include/asm/cputype.h. */
  private static final Map<Integer, String> ARM_IMPLEMENTERS = Map.ofEntries(
      Map.entry(0x41, "arm"), Map.entry(0x42, "broadcom"), Map.entry(0x43, "cavium"), Map.entry(0x46, "fujitsu"),
      Map.entry(0x48, "hisilicon"), Map.entry(0x4e, "nvidia"), Map.entry(0x50, "apm"), Map.entry(0x51, "qualcomm"),
      Map.entry(0x61, "apple"), Map.entry(0x6d, "microsoft"), Map.entry(0xc0, "ampere"));

  /** (implementer &lt;&lt; 16 | part) to the core's name: the *_CPU_PART_* of arch/arm64/include/asm/cputype.h. */
  private static final Map<Integer, String> ARM_PARTS = Map.ofEntries(
      Map.entry(0x41 << 16 | 0xc09, "cortex-a9"), Map.entry(0x41 << 16 | 0xd03, "cortex-a53"),
      Map.entry(0x41 << 16 | 0xd07, "cortex-a57"), Map.entry(0x41 << 16 | 0xd08, "cortex-a72"),
      Map.entry(0x41 << 16 | 0xd0b, "cortex-a76"), Map.entry(0x41 << 16 | 0xd0c, "neoverse-n1"),
      Map.entry(0x41 << 16 | 0xd40, "neoverse-v1"), Map.entry(0x41 << 16 | 0xd49, "neoverse-n2"),
      Map.entry(0x41 << 16 | 0xd4f, "neoverse-v2"), Map.entry(0x41 << 16 | 0xd84, "neoverse-v3"),
      Map.entry(0x41 << 16 | 0xd8e, "neoverse-n3"), Map.entry(0x46 << 16 | 0x001, "a64fx"),
      Map.entry(0x48 << 16 | 0xd01, "tsv110"), Map.entry(0xc0 << 16 | 0xac3, "ampere1"),
      Map.entry(0xc0 << 16 | 0xac4, "ampere1a"));

  /**
   * Intel family 6 model to the core design (INTEL_* of arch/x86/include/asm/intel-family.h), named as
   * GCC's {@code -march} does. Model 0x55 is three designs told apart by stepping (see {@link #intel}).
   */
  private static final Map<Integer, String> INTEL_FAMILY6 = Map.ofEntries(
      Map.entry(0x1a, "nehalem"), Map.entry(0x1e, "nehalem"), Map.entry(0x2e, "nehalem"),
      Map.entry(0x25, "westmere"), Map.entry(0x2c, "westmere"), Map.entry(0x2f, "westmere"),
      Map.entry(0x2a, "sandybridge"), Map.entry(0x2d, "sandybridge"),
      Map.entry(0x3a, "ivybridge"), Map.entry(0x3e, "ivybridge"),
      Map.entry(0x3c, "haswell"), Map.entry(0x3f, "haswell"), Map.entry(0x45, "haswell"), Map.entry(0x46, "haswell"),
      Map.entry(0x3d, "broadwell"), Map.entry(0x47, "broadwell"), Map.entry(0x4f, "broadwell"), Map.entry(0x56, "broadwell"),
      Map.entry(0x4e, "skylake"), Map.entry(0x5e, "skylake"),
      Map.entry(0x57, "knl"), Map.entry(0x85, "knm"),
      Map.entry(0x6a, "icelake-server"), Map.entry(0x6c, "icelake-server"),
      Map.entry(0x7d, "icelake-client"), Map.entry(0x7e, "icelake-client"),
      Map.entry(0x8c, "tigerlake"), Map.entry(0x8d, "tigerlake"),
      Map.entry(0x8f, "sapphirerapids"), Map.entry(0xcf, "emeraldrapids"),
      Map.entry(0xad, "graniterapids"), Map.entry(0xae, "graniterapids"), Map.entry(0xaf, "sierraforest"),
      Map.entry(0x97, "alderlake"), Map.entry(0x9a, "alderlake"),
      Map.entry(0xb7, "raptorlake"), Map.entry(0xba, "raptorlake"), Map.entry(0xbf, "raptorlake"),
      Map.entry(0xaa, "meteorlake"), Map.entry(0xac, "meteorlake"));

  private static final Pattern POWER = Pattern.compile("^POWER(\\d{1,2})\\b.*");
  private static final Pattern WHITESPACE = Pattern.compile("\\s+");

  /**
   * The identity of one logical CPU from its cpuinfo {@code fields}; {@code machine} is the kernel's
   * machine name when the host says it ({@code /proc/sys/kernel/arch}, an arm64 modalias), else null
   * and hinted from cpuinfo.
   */
  /**
   * The cpuinfo fields {@link #of} reads, and only those: CPUs whose values of these agree have the same
   * identity (the others, such as {@code processor}, {@code core id} or {@code cpu MHz}, differ per CPU).
   */
  static final List<String> FIELDS = List.of("vendor_id", "cpu family", "arch", "CPU implementer", "cpu", "flags",
      "CPU architecture", "vendor", "model name", "Processor", "model", "stepping", "CPU part", "Features");

  /** The values of {@link #FIELDS} in {@code fields} (null where absent): equal keys, equal identity. */
  static List<String> key(Map<String, String> fields) {
    return key(fields::get);
  }

  /** {@link #key(Map)} of the fields {@code field} looks up. */
  static List<String> key(java.util.function.UnaryOperator<String> field) {
    String[] values = new String[FIELDS.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = field.apply(FIELDS.get(i));
    }
    return java.util.Arrays.asList(values);
  }

  static CpuIdentity of(Map<String, String> fields, String machine) {
    String vendorId = fields.get("vendor_id");
    boolean x86 = vendorId != null && fields.containsKey("cpu family");
    boolean s390 = vendorId != null && vendorId.startsWith("IBM/S390");
    boolean ia64 = "IA-64".equals(fields.get("arch"));
    Integer implementer = hex(fields.get("CPU implementer"));
    boolean arm = implementer != null;
    String ppcCpu = fields.get("cpu");
    boolean power = ppcCpu != null && POWER.matcher(ppcCpu).matches();

    String architecture = machine;
    if (architecture == null) {
      if (x86 && fields.containsKey("flags")) {
        // "lm" (long mode) is the 64-bit CPU; a 32-bit kernel on it would say i686, but cpuinfo alone
        // cannot tell, and /proc/sys/kernel/arch (read first) does where the kernel has it.
        architecture = words(fields.get("flags")).contains("lm") ? "x86_64" : "i686";
      } else if (arm) {
        String archField = fields.getOrDefault("CPU architecture", "");
        architecture = archField.equals("8") || archField.equalsIgnoreCase("AArch64") ? "aarch64"
            : archField.equals("7") ? "armv7l" : null;
      } else if (s390) {
        architecture = "s390x"; // Linux supports only the 64-bit z/Architecture since 4.1
      } else if (ia64) {
        architecture = "ia64";
      }
    }

    String vendor = null;
    if (x86) {
      vendor = X86_VENDORS.get(vendorId.strip());
    } else if (ia64 && fields.containsKey("vendor")) {
      vendor = X86_VENDORS.get(fields.get("vendor").strip());
    } else if (arm) {
      vendor = ARM_IMPLEMENTERS.get(implementer);
    } else if (s390 || power) {
      vendor = "ibm";
    }

    String modelName = collapse(fields.get("model name"));
    if (modelName == null) {
      modelName = collapse(fields.get("Processor"));
    }
    if (modelName == null && power) {
      modelName = collapse(ppcCpu);
    }

    Integer family = x86 ? number(fields.get("cpu family")) : null;
    Integer model = x86 ? number(fields.get("model")) : null;
    Integer stepping = x86 ? number(fields.get("stepping")) : null;

    String micro = null;
    if (x86 && family != null && model != null) {
      micro = switch (Objects.requireNonNullElse(vendor, "")) {
        case "intel" -> intel(family, model, stepping);
        case "amd" -> amd(family, model);
        case "hygon" -> family == 0x18 ? "dhyana" : null;
        default -> null;
      };
    } else if (arm) {
      Integer part = hex(fields.get("CPU part"));
      micro = part == null ? null : ARM_PARTS.get(implementer << 16 | part);
    } else if (power) {
      Matcher m = POWER.matcher(ppcCpu);
      micro = m.matches() ? "power" + Integer.parseInt(m.group(1)) : null;
    }

    Map<String, Boolean> features = new LinkedHashMap<>();
    if (x86 && fields.containsKey("flags")) {
      Set<String> flags = words(fields.get("flags"));
      X86_FEATURES.forEach((flag, name) -> features.put(name, flags.contains(flag)));
    } else if (arm && "aarch64".equals(architecture) && fields.containsKey("Features")) {
      Set<String> flags = words(fields.get("Features"));
      ARM64_FEATURES.forEach((flag, name) -> features.put(name, flags.contains(flag)));
    }
    return new CpuIdentity(architecture, vendor, modelName, family, model, stepping, micro, java.util.Collections.unmodifiableMap(features));
  }

  /**
   * The identity several CPUs share, for a device that holds them: each fact where all CPUs that know
   * it agree, null where they differ; a feature is true only when every CPU has it (a claim may get any
   * of them) and is published only when every CPU says.
   */
  static CpuIdentity common(Collection<CpuIdentity> cpus) {
    if (cpus.isEmpty()) {
      return UNKNOWN;
    }
    Map<String, Boolean> features = new LinkedHashMap<>();
    boolean first = true;
    for (CpuIdentity c : cpus) {
      if (first) {
        features.putAll(c.features());
        first = false;
      } else {
        features.keySet().retainAll(c.features().keySet());
        c.features().forEach((k, v) -> features.computeIfPresent(k, (kk, old) -> old && v));
      }
    }
    return new CpuIdentity(agreed(cpus, CpuIdentity::architecture), agreed(cpus, CpuIdentity::vendor),
        agreed(cpus, CpuIdentity::modelName), agreed(cpus, CpuIdentity::family), agreed(cpus, CpuIdentity::model),
        agreed(cpus, CpuIdentity::stepping), agreed(cpus, CpuIdentity::microarchitecture), java.util.Collections.unmodifiableMap(features));
  }

  private static <T> T agreed(Collection<CpuIdentity> cpus, Function<CpuIdentity, T> fact) {
    T value = null;
    for (CpuIdentity c : cpus) {
      T v = fact.apply(c);
      if (v == null) {
        continue;
      }
      if (value == null) {
        value = v;
      } else if (!value.equals(v)) {
        return null;
      }
    }
    return value;
  }

  /** Intel family 6; 0x55 by stepping (intel-family.h: SKYLAKE_X, and Cascade/Cooper Lake share it). */
  private static String intel(int family, int model, Integer stepping) {
    if (family != 6) {
      return null;
    }
    if (model == 0x55) {
      if (stepping == null) {
        return null;
      }
      return stepping <= 4 ? "skylake-avx512" : stepping <= 7 ? "cascadelake" : stepping <= 11 ? "cooperlake" : null;
    }
    return INTEL_FAMILY6.get(model);
  }

  /** AMD by family and model ranges, as arch/x86/kernel/cpu/amd.c sets X86_FEATURE_ZEN1..ZEN5. */
  private static String amd(int family, int model) {
    return switch (family) {
      case 0x0f -> "k8";
      case 0x10 -> "k10";
      case 0x15 -> model <= 0x01 ? "bulldozer" : model <= 0x1f ? "piledriver" : model >= 0x30 && model <= 0x3f
          ? "steamroller" : model >= 0x60 && model <= 0x7f ? "excavator" : null;
      case 0x17 -> model <= 0x2f || (model >= 0x50 && model <= 0x5f) ? "zen"
          : (model >= 0x30 && model <= 0x4f) || (model >= 0x60 && model <= 0x7f) || model == 0x90 || model == 0x91
              || (model >= 0xa0 && model <= 0xaf) ? "zen2" : null;
      case 0x19 -> model <= 0x0f || (model >= 0x20 && model <= 0x5f) ? "zen3"
          : (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0xaf) ? "zen4" : null;
      case 0x1a -> model <= 0x2f || (model >= 0x40 && model <= 0x4f) || (model >= 0x60 && model <= 0x7f) ? "zen5" : null;
      default -> null;
    };
  }

  private static String collapse(String text) {
    if (text == null) {
      return null;
    }
    String s = WHITESPACE.matcher(text.strip()).replaceAll(" ");
    return s.isEmpty() ? null : s;
  }

  private static Set<String> words(String text) {
    return new java.util.HashSet<>(java.util.Arrays.asList(WHITESPACE.split(text.strip().toLowerCase(Locale.ROOT))));
  }

  private static Integer number(String text) {
    if (text == null || text.isEmpty() || text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return null;
    }
    return Integer.parseInt(text);
  }

  private static Integer hex(String text) {
    if (text == null || !text.startsWith("0x") || text.length() < 3 || text.length() > 10) {
      return null;
    }
    try {
      long v = Long.parseLong(text.substring(2), 16);
      return v > Integer.MAX_VALUE ? null : (int) v;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Map<String, String> orderedMap(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }
}
