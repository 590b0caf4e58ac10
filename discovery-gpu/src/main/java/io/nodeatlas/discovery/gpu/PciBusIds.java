package io.nodeatlas.discovery.gpu;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PCI addresses in the form sysfs and Kubernetes use, {@code dddd:bb:dd.f} in lower case (at least
 * four domain digits; VMD domains such as {@code 10000} keep five). NVML prints the domain with
 * eight upper-case digits ({@code 00000000:3B:00.0}), so its text is normalised here rather than
 * stripped of a prefix (nvml.md §2).
 */
public final class PciBusIds {

  private static final Pattern BUS_ID =
      Pattern.compile("^([0-9A-Fa-f]{1,8}):([0-9A-Fa-f]{1,2}):([0-9A-Fa-f]{1,2})\\.([0-7])$");

  /** The {@code resource.kubernetes.io/pciBusID} format (DRALIB deviceattribute): exactly four domain digits. */
  private static final Pattern STANDARD = Pattern.compile("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]$");

  private PciBusIds() {}

  /** Normalises any {@code domain:bus:device.function} text; empty when it is not one. */
  public static Optional<String> normalise(String text) {
    if (text == null) {
      return Optional.empty();
    }
    Matcher m = BUS_ID.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    long domain = Long.parseLong(m.group(1), 16);
    int bus = Integer.parseInt(m.group(2), 16);
    int device = Integer.parseInt(m.group(3), 16);
    int function = Integer.parseInt(m.group(4));
    if (device > 0x1f) {
      return Optional.empty();
    }
    return Optional.of(format(domain, bus, device, function));
  }

  /** From NVML's integer fields; NVML does not store the function, which is 0 for a GPU. */
  public static String format(long domain, int bus, int device, int function) {
    return String.format("%04x:%02x:%02x.%x", domain, bus, device, function);
  }

  /** Whether {@code busId} fits the Kubernetes standard attribute (domains above ffff do not). */
  public static boolean isStandard(String busId) {
    return busId != null && STANDARD.matcher(busId).matches();
  }
}
