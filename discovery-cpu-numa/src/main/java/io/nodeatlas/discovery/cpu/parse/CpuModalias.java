package io.nodeatlas.discovery.cpu.parse;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU's module alias ({@code /sys/devices/system/cpu/modalias}, {@code drivers/base/cpu.c}
 * {@code print_cpu_modalias}): {@code cpu:type:<type>:feature:,<ids>}. On x86 the type is
 * {@code x86,venVVVVfamFFFFmodMMMM} ({@code arch/x86/include/asm/cpufeature.h}, {@code CPU_FEATURE_TYPEFMT});
 * on arm64 it is {@code ELF_PLATFORM}, {@code aarch64}. Kernels before 3.11 printed x86's own form
 * {@code x86cpu:vendor:VVVV:family:FFFF:model:MMMM:feature:...}.
 *
 * @param type the type word: {@code x86}, {@code aarch64}, ...
 * @param family the x86 family, -1 when the alias has none
 * @param model the x86 model, -1 when the alias has none
 */
public record CpuModalias(String type, int family, int model) {

  private static final Pattern GENERIC = Pattern.compile("^cpu:type:([a-z0-9_]{1,32})(?:,ven([0-9A-Fa-f]{4})fam([0-9A-Fa-f]{4})mod([0-9A-Fa-f]{4}))?:feature:.*", Pattern.DOTALL);
  private static final Pattern OLD_X86 = Pattern.compile("^x86cpu:vendor:([0-9A-Fa-f]{4}):family:([0-9A-Fa-f]{4}):model:([0-9A-Fa-f]{4}):feature:.*", Pattern.DOTALL);

  /** Longer than any alias: x86's feature list is at most ~700 ids of 5 characters. */
  static final int MAX_LENGTH = 64 * 1024;

  /** The alias, or IllegalArgumentException when the text is neither form. */
  public static CpuModalias parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("modalias is null");
    }
    String s = text.strip();
    if (s.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("modalias longer than " + MAX_LENGTH + " characters");
    }
    Matcher m = GENERIC.matcher(s);
    if (m.matches()) {
      boolean x86ids = m.group(2) != null;
      return new CpuModalias(m.group(1), x86ids ? Integer.parseInt(m.group(3), 16) : -1,
          x86ids ? Integer.parseInt(m.group(4), 16) : -1);
    }
    m = OLD_X86.matcher(s);
    if (m.matches()) {
      return new CpuModalias("x86", Integer.parseInt(m.group(2), 16), Integer.parseInt(m.group(3), 16));
    }
    throw new IllegalArgumentException("not a CPU modalias (cpu:type:...:feature:...)");
  }

  /** The kernel's machine name the alias tells for certain, if any (x86 alone does not tell 32 from 64 bits). */
  public Optional<String> machine() {
    return type.equals("aarch64") ? Optional.of("aarch64") : Optional.empty();
  }
}
