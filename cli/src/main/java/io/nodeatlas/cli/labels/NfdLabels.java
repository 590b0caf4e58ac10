package io.nodeatlas.cli.labels;

import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The node labels of the devices nodeatlas publishes, by the short mapping of docs/labels.md: per
 * device type, {@code nodeatlas.io/<type>.count}, {@code .vendor}, {@code .product},
 * {@code .architecture}, {@code .memory-mib}; {@code rdma.<transport>}; {@code hugepages-<size>.memory-mib}.
 * A text label appears only when every device of its type says the same; sizes are whole MiB, so
 * NodeFeatureRules and node affinity can compare them ({@code Gt}). Names and values follow the
 * Kubernetes label syntax NFD enforces (a name of at most 63 characters after the prefix, a value of at
 * most 63 of {@code [A-Za-z0-9._-]}, starting and ending alphanumeric; node-feature-discovery's
 * customization guide, "Node labels"); the {@code nodeatlas.io} namespace is outside the
 * {@code kubernetes.io}/{@code k8s.io} ones nfd-master denies.
 */
public final class NfdLabels {

  /** The label namespace: our attribute domain. */
  public static final String PREFIX = Names.DOMAIN + "/";

  private static final long MIB = 1L << 20;

  /** A label name after the prefix, and a label value: Kubernetes' qualified-name and label-value syntax. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  private NfdLabels() {}

  /** The labels, sorted by name, and a warning for each one left out. */
  public record Result(SortedMap<String, String> labels, List<String> warnings) {}

  public static Result of(List<Device> devices) {
    SortedMap<String, String> labels = new TreeMap<>();
    List<String> warnings = new ArrayList<>();
    Map<String, List<Device>> byType = new TreeMap<>();
    for (Device d : devices) {
      d.type().ifPresent(t -> byType.computeIfAbsent(t, k -> new ArrayList<>()).add(d));
    }
    for (Map.Entry<String, List<Device>> e : byType.entrySet()) {
      String type = e.getKey();
      List<Device> of = e.getValue();
      switch (type) {
        case "gpu" -> {
          put(labels, warnings, "gpu.count", Integer.toString(of.size()));
          sameVendor(of).ifPresent(v -> put(labels, warnings, "gpu.vendor", v));
          same(of, "productName").ifPresent(v -> put(labels, warnings, "gpu.product", v));
          same(of, "architecture").ifPresent(v -> put(labels, warnings, "gpu.architecture", v));
          smallestMib(of, "memory").ifPresent(v -> put(labels, warnings, "gpu.memory-mib", Long.toString(v)));
        }
        case "cpu" -> {
          long cpus = 0;
          for (Device d : of) {
            cpus += intAttribute(d, "cpuCount").orElse(0L);
          }
          if (cpus > 0) {
            put(labels, warnings, "cpu.count", Long.toString(cpus));
          }
          same(of, "vendor").ifPresent(v -> put(labels, warnings, "cpu.vendor", v));
          same(of, "cpuModel").ifPresent(v -> put(labels, warnings, "cpu.product", v));
          same(of, "architecture").ifPresent(v -> put(labels, warnings, "cpu.architecture", v));
        }
        case "rdma" -> {
          put(labels, warnings, "rdma.count", Integer.toString(of.size()));
          TreeSet<String> transports = new TreeSet<>();
          of.forEach(d -> text(d, "transport").ifPresent(transports::add));
          transports.forEach(t -> put(labels, warnings, "rdma." + t, "true"));
        }
        case "hugepages" -> {
          Map<String, Long> bySize = new TreeMap<>();
          for (Device d : of) {
            Optional<String> size = text(d, "pageSize");
            Optional<Long> mib = mib(d, "memory");
            if (size.isPresent() && mib.isPresent()) {
              bySize.merge(size.get(), mib.get(), Long::sum);
            }
          }
          bySize.forEach((size, mib) -> put(labels, warnings, "hugepages-" + size + ".memory-mib", Long.toString(mib)));
        }
        default -> {
          // Other types (nic, vf, mig) have no labels in the mapping: their slices say more than a label could.
        }
      }
    }
    return new Result(labels, warnings);
  }

  /** Adds {@code nodeatlas.io/<name>=<value>}, the value made a label value; one that cannot be is left out with a warning. */
  private static void put(SortedMap<String, String> labels, List<String> warnings, String name, String value) {
    if (!NAME.matcher(name).matches()) {
      warnings.add("label name " + Excerpt.scrub(name) + " is not a label name; left out");
      return;
    }
    String v = labelValue(value);
    if (v.isEmpty()) {
      warnings.add("label " + PREFIX + name + ": " + Excerpt.of(value) + " leaves no label value; left out");
      return;
    }
    labels.put(PREFIX + name, v);
  }

  /**
   * {@code text} as a label value: each run of other characters than {@code [A-Za-z0-9._-]} becomes one
   * {@code -}, then cut to 63 characters and trimmed to start and end alphanumeric
   * ({@code NVIDIA H100 80GB HBM3} → {@code NVIDIA-H100-80GB-HBM3}).
   */
  static String labelValue(String text) {
    String v = text.replaceAll("[^A-Za-z0-9._-]+", "-");
    v = trim(v);
    if (v.length() > 63) {
      v = trim(v.substring(0, 63));
    }
    return v;
  }

  private static String trim(String v) {
    return v.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
  }

  /** The attribute's text when every device has it and all say the same. */
  private static Optional<String> same(List<Device> devices, String attribute) {
    String seen = null;
    for (Device d : devices) {
      Optional<String> v = text(d, attribute);
      if (v.isEmpty() || (seen != null && !seen.equals(v.get()))) {
        return Optional.empty();
      }
      seen = v.get();
    }
    return Optional.ofNullable(seen);
  }

  /**
   * The vendor every device names: its {@code vendor} attribute, else the short name of its PCI vendor
   * id (the NVML source publishes the id alone), else the id.
   */
  private static Optional<String> sameVendor(List<Device> devices) {
    String seen = null;
    for (Device d : devices) {
      Optional<String> v = text(d, "vendor").or(() -> text(d, "pciVendorID").map(id -> PCI_VENDORS.getOrDefault(id, id)));
      if (v.isEmpty() || (seen != null && !seen.equals(v.get()))) {
        return Optional.empty();
      }
      seen = v.get();
    }
    return Optional.ofNullable(seen);
  }

  /** PCI vendor ids of GPU makers (pci.ids), by the names the vendor attribute uses. */
  private static final Map<String, String> PCI_VENDORS = Map.of("10de", "nvidia", "1002", "amd", "8086", "intel");

  private static Optional<String> text(Device d, String attribute) {
    return d.attribute(Names.ours(attribute)).map(AttributeValue::asObject).map(String::valueOf)
        .filter(s -> !s.isBlank());
  }

  private static Optional<Long> intAttribute(Device d, String attribute) {
    return d.attribute(Names.ours(attribute)).map(AttributeValue::asObject)
        .filter(o -> o instanceof Long || o instanceof Integer).map(o -> ((Number) o).longValue());
  }

  /** The smallest whole MiB of a capacity over devices that all have it. */
  private static Optional<Long> smallestMib(List<Device> devices, String capacity) {
    Long smallest = null;
    for (Device d : devices) {
      Optional<Long> m = mib(d, capacity);
      if (m.isEmpty()) {
        return Optional.empty();
      }
      smallest = smallest == null ? m.get() : Math.min(smallest, m.get());
    }
    return Optional.ofNullable(smallest);
  }

  private static Optional<Long> mib(Device d, String capacity) {
    Quantity q = d.capacity().get(Names.ours(capacity));
    if (q == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(q.toBigDecimal().divideToIntegralValue(BigDecimal.valueOf(MIB)).longValueExact());
    } catch (ArithmeticException e) {
      return Optional.empty();
    }
  }

  /** The NFD local feature file: a comment, then one {@code name=value} line per label (features.d format). */
  public static String featureFile(SortedMap<String, String> labels) {
    StringBuilder b = new StringBuilder("# nodeatlas labels: node-feature-discovery local features of the devices nodeatlas "
        + "publishes (mapping: docs/labels.md). Written by `nodeatlas labels` or `run --features-dir`; do not edit.\n");
    labels.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
    return b.toString();
  }
}
