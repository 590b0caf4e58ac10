package io.nodeatlas.discovery.gpu;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns NVIDIA's version numbers into the strict semantic versions a DRA {@code version}
 * attribute requires ({@code resource.k8s.io/v1} {@code DeviceAttribute.version}: strict semver
 * 2.0.0), as NVIDIA's DRA driver does: one to three dot-separated numbers, leading zeros dropped,
 * missing parts zero ({@code 535.104.05} → {@code 535.104.5}, {@code 591.86} → {@code 591.86.0}).
 * Anything else is not a version.
 */
public final class DriverVersions {

  private static final Pattern NUMERIC = Pattern.compile("^[0-9]{1,18}(\\.[0-9]{1,18}){0,2}$");

  private DriverVersions() {}

  /** A driver version ({@code nvmlSystemGetDriverVersion}) as semver; empty when it is not numeric. */
  public static Optional<String> semver(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String s = text.trim();
    if (!NUMERIC.matcher(s).matches()) {
      return Optional.empty();
    }
    String[] parts = s.split("\\.");
    long[] numbers = new long[3];
    for (int i = 0; i < parts.length; i++) {
      numbers[i] = Long.parseLong(parts[i]);
    }
    return Optional.of(numbers[0] + "." + numbers[1] + "." + numbers[2]);
  }

  /**
   * {@code nvmlSystemGetCudaDriverVersion}'s {@code major*1000 + minor*10} as semver, using the
   * header's macros {@code v/1000} and {@code (v%1000)/10}: {@code 12040} → {@code 12.4.0}.
   */
  public static Optional<String> cudaSemver(int version) {
    if (version <= 0) {
      return Optional.empty();
    }
    return Optional.of(version / 1000 + "." + (version % 1000) / 10 + ".0");
  }

  /** A compute capability {@code major.minor} as semver ({@code 9.0} → {@code 9.0.0}). */
  public static Optional<String> computeCapabilitySemver(int major, int minor) {
    if (major < 0 || minor < 0) {
      return Optional.empty();
    }
    return Optional.of(major + "." + minor + ".0");
  }
}
