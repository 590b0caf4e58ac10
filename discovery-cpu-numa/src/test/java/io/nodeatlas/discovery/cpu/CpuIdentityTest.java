package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.cpu.parse.CpuInfo;
import io.nodeatlas.discovery.cpu.parse.CpuInfoParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuIdentityTest {

  private static Map<String, String> x86(String vendor, int family, int model, int stepping, String flags) {
    return Map.of("vendor_id", vendor, "cpu family", "" + family, "model", "" + model, "stepping", "" + stepping,
        "model name", "Some  CPU", "flags", flags);
  }

  @Test
  void intelByFamilyModelAndStepping() {
    assertThat(CpuIdentity.of(x86("GenuineIntel", 6, 143, 8, "lm"), null).microarchitecture()).isEqualTo("sapphirerapids");
    assertThat(CpuIdentity.of(x86("GenuineIntel", 6, 85, 4, "lm"), null).microarchitecture()).isEqualTo("skylake-avx512");
    assertThat(CpuIdentity.of(x86("GenuineIntel", 6, 85, 7, "lm"), null).microarchitecture()).isEqualTo("cascadelake");
    assertThat(CpuIdentity.of(x86("GenuineIntel", 6, 85, 11, "lm"), null).microarchitecture()).isEqualTo("cooperlake");
    assertThat(CpuIdentity.of(x86("GenuineIntel", 15, 6, 8, "lm"), null).microarchitecture()).isNull();
  }

  @Test
  void amdByFamilyAndModelRange() {
    assertThat(CpuIdentity.of(x86("AuthenticAMD", 25, 17, 1, "lm"), null).microarchitecture()).isEqualTo("zen4");
    assertThat(CpuIdentity.of(x86("AuthenticAMD", 25, 1, 1, "lm"), null).microarchitecture()).isEqualTo("zen3");
    assertThat(CpuIdentity.of(x86("AuthenticAMD", 23, 49, 0, "lm"), null).microarchitecture()).isEqualTo("zen2");
    assertThat(CpuIdentity.of(x86("AuthenticAMD", 26, 2, 0, "lm"), null).microarchitecture()).isEqualTo("zen5");
    CpuIdentity hygon = CpuIdentity.of(x86("HygonGenuine", 24, 0, 1, "lm avx2"), null);
    assertThat(hygon.vendor()).isEqualTo("hygon");
    assertThat(hygon.microarchitecture()).isEqualTo("dhyana");
  }

  @Test
  void x86FeaturesAreAlwaysThereOnX86() {
    CpuIdentity id = CpuIdentity.of(x86("  Shanghai  ", 7, 59, 0, "fpu"), null);
    assertThat(id.vendor()).isEqualTo("zhaoxin");
    assertThat(id.architecture()).isEqualTo("i686"); // no lm, no kernel.arch
    assertThat(id.modelName()).isEqualTo("Some CPU");
    assertThat(id.features()).containsExactly(Map.entry("avx2", false), Map.entry("avx512f", false), Map.entry("amxTile", false));
  }

  @Test
  void kernelArchWinsOverHints() {
    assertThat(CpuIdentity.of(x86("GenuineIntel", 6, 143, 8, "lm"), "i686").architecture()).isEqualTo("i686");
  }

  @Test
  void armImplementersAndParts() {
    Map<String, String> ampere = Map.of("CPU implementer", "0xc0", "CPU architecture", "8", "CPU part", "0xac3",
        "Features", "fp asimd");
    CpuIdentity a = CpuIdentity.of(ampere, null);
    assertThat(a.vendor()).isEqualTo("ampere");
    assertThat(a.architecture()).isEqualTo("aarch64");
    assertThat(a.microarchitecture()).isEqualTo("ampere1");
    assertThat(a.features()).containsExactly(Map.entry("sve", false));
    assertThat(a.family()).isNull();
    CpuIdentity unknown = CpuIdentity.of(Map.of("CPU implementer", "0x99", "CPU architecture", "8"), null);
    assertThat(unknown.vendor()).isNull();
    assertThat(unknown.architecture()).isEqualTo("aarch64");
  }

  @Test
  void powerAndS390() {
    CpuIdentity p9 = CpuIdentity.of(Map.of("cpu", "POWER9, altivec supported", "revision", "2.1 (pvr 004e 1201)"), null);
    assertThat(p9.vendor()).isEqualTo("ibm");
    assertThat(p9.modelName()).isEqualTo("POWER9, altivec supported");
    assertThat(p9.microarchitecture()).isEqualTo("power9");
    assertThat(p9.architecture()).as("cpuinfo does not tell ppc64 from ppc64le").isNull();
    assertThat(CpuIdentity.of(Map.of("cpu", "POWER9"), "ppc64le").architecture()).isEqualTo("ppc64le");
    CpuIdentity z = CpuIdentity.of(Map.of("vendor_id", "IBM/S390", "features", "esan3 zarch"), null);
    assertThat(z.vendor()).isEqualTo("ibm");
    assertThat(z.architecture()).isEqualTo("s390x");
    assertThat(z.features()).isEmpty();
  }

  @Test
  void commonKeepsOnlyWhatAllAgreeOn() {
    CpuIdentity a = CpuIdentity.of(x86("GenuineIntel", 6, 143, 8, "lm avx2 avx512f"), null);
    CpuIdentity b = CpuIdentity.of(x86("GenuineIntel", 6, 143, 7, "lm avx2"), null);
    CpuIdentity both = CpuIdentity.common(List.of(a, b));
    assertThat(both.stepping()).isNull();
    assertThat(both.model()).isEqualTo(143);
    assertThat(both.features()).containsEntry("avx2", true).containsEntry("avx512f", false);
    assertThat(CpuIdentity.common(List.of())).isEqualTo(CpuIdentity.UNKNOWN);
  }

  /** Any cpuinfo: an identity for every CPU without exception, with only lower-case enum-like values. */
  @FuzzTest
  void anyCpuinfoGivesAnIdentity(String text) {
    if (text == null) {
      return; // null is refused up front (FactReader never passes it)
    }
    CpuInfo info = CpuInfoParser.parse(text);
    for (int cpu : info.processors().keySet()) {
      CpuIdentity id = CpuIdentity.of(info.fieldsOf(cpu), null);
      if (id.vendor() != null) {
        assertThat(id.vendor()).matches("[a-z]+");
      }
      if (id.architecture() != null) {
        assertThat(id.architecture()).matches("[a-z0-9_]+");
      }
      if (id.modelName() != null) {
        assertThat(id.modelName()).doesNotContain("  ", "\n", "\t").isEqualTo(id.modelName().strip());
      }
    }
    CpuIdentity.of(info.shared(), null);
  }

  /** CpuIdentities shares one identity among CPUs whose FIELDS agree: of() must read no other field. */
  @Test
  void theIdentityDependsOnlyOnTheFieldsItIsKeyedBy() {
    List<Map<String, String>> machines = List.of(
        x86("GenuineIntel", 6, 143, 8, "fpu lm avx512f amx_tile"),
        Map.of("CPU implementer", "0x41", "CPU architecture", "8", "CPU part", "0xd0c", "Features", "fp asimd sve",
            "model name", "ARMv8 Processor rev 1 (v8l)"),
        Map.of("cpu", "POWER9 (raw), altivec supported", "revision", "2.2 (pvr 004e 1202)", "machine", "PowerNV"),
        Map.of("vendor_id", "IBM/S390", "Processor", "IBM/S390"),
        Map.of("arch", "IA-64", "vendor", "GenuineIntel", "family", "Itanium 2"));
    for (Map<String, String> fields : machines) {
      Map<String, String> noisy = new java.util.HashMap<>(fields);
      noisy.putAll(Map.of("processor", "17", "core id", "3", "cpu MHz", "2394.374", "bogomips", "4788.74",
          "apicid", "34", "physical id", "1", "clock", "3800.000000MHz"));
      Map<String, String> keyed = new java.util.HashMap<>();
      for (String name : CpuIdentity.FIELDS) {
        if (fields.containsKey(name)) {
          keyed.put(name, fields.get(name));
        }
      }
      assertThat(CpuIdentity.of(noisy, null)).as(fields.toString()).isEqualTo(CpuIdentity.of(keyed, null));
      assertThat(CpuIdentity.key(noisy)).isEqualTo(CpuIdentity.key(keyed));
    }
  }
}
