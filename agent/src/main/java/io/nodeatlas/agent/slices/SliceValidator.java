package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Names;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API server's ResourceSlice validation that applies to what we send (dra-api.md §3.1–3.3, §10.6),
 * run before sending: a device the API would reject is left out with a warning instead of failing
 * the whole pool.
 */
public final class SliceValidator {

  /** ResourceSliceMaxDevices. */
  public static final int MAX_DEVICES = 128;
  /** ResourceSliceMaxDevices when any device uses taints, counters or list attributes (1.35+). */
  public static final int MAX_DEVICES_WITH_TAINTS = 64;
  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;
  /** Taints per device (1.35+). */
  public static final int MAX_TAINTS = 16;

  private SliceValidator() {}

  /** Problems with one device; empty when the API would accept it. */
  public static List<String> deviceProblems(Device d) {
    List<String> problems = new ArrayList<>();
    if (!Names.isDnsLabel(d.getName())) {
      problems.add("name \"" + d.getName() + "\" is not a DNS label");
    }
    Map<String, DeviceAttribute> attributes = d.getAttributes() == null ? Map.of() : d.getAttributes();
    Map<String, ?> capacity = d.getCapacity() == null ? Map.of() : d.getCapacity();
    if (attributes.size() + capacity.size() > MAX_ATTRIBUTES_AND_CAPACITIES) {
      problems.add((attributes.size() + capacity.size()) + " attributes and capacities, at most "
          + MAX_ATTRIBUTES_AND_CAPACITIES + " allowed");
    }
    attributes.forEach((name, value) -> {
      qualifiedNameProblem(name).ifPresent(problems::add);
      attributeProblem(name, value).ifPresent(problems::add);
    });
    capacity.forEach((name, value) -> qualifiedNameProblem(name).ifPresent(problems::add));
    for (String name : attributes.keySet()) {
      if (capacity.containsKey(name)) {
        problems.add("\"" + name + "\" is both an attribute and a capacity");
      }
    }
    if (d.getTaints() != null && d.getTaints().size() > MAX_TAINTS) {
      problems.add(d.getTaints().size() + " taints, at most " + MAX_TAINTS + " allowed");
    }
    return problems;
  }

  /** Problems with a whole slice as it will be sent. */
  public static List<String> sliceProblems(ResourceSlice s) {
    List<String> problems = new ArrayList<>();
    String name = s.getMetadata() == null ? null : s.getMetadata().getName();
    if (name == null || !Names.isDnsSubdomain(name)) {
      problems.add("slice name \"" + name + "\" is not a DNS subdomain of at most 253 characters");
    }
    var spec = s.getSpec();
    if (spec == null) {
      problems.add("slice has no spec");
      return problems;
    }
    String driver = spec.getDriver();
    if (driver == null || driver.length() > 63 || !Names.isDnsSubdomain(driver.toLowerCase(java.util.Locale.ROOT))) {
      problems.add("driver \"" + driver + "\" is not a DNS subdomain of at most 63 characters");
    }
    if (spec.getNodeName() == null || !Names.isDnsSubdomain(spec.getNodeName())) {
      problems.add("nodeName \"" + spec.getNodeName() + "\" is not a valid node name");
    }
    var pool = spec.getPool();
    if (pool == null || pool.getName() == null || !validPoolName(pool.getName())) {
      problems.add("pool name \"" + (pool == null ? null : pool.getName()) + "\" is not valid");
    } else {
      if (pool.getGeneration() == null || pool.getGeneration() < 0) {
        problems.add("pool generation must be >= 0");
      }
      if (pool.getResourceSliceCount() == null || pool.getResourceSliceCount() <= 0) {
        problems.add("pool resourceSliceCount must be > 0");
      }
    }
    List<Device> devices = spec.getDevices() == null ? List.of() : spec.getDevices();
    boolean tainted = devices.stream().anyMatch(d -> d.getTaints() != null && !d.getTaints().isEmpty());
    int max = tainted ? MAX_DEVICES_WITH_TAINTS : MAX_DEVICES;
    if (devices.size() > max) {
      problems.add(devices.size() + " devices, at most " + max + " allowed in one slice");
    }
    Set<String> seen = new HashSet<>();
    for (Device d : devices) {
      if (!seen.add(d.getName())) {
        problems.add("device \"" + d.getName() + "\" appears twice");
      }
      deviceProblems(d).forEach(p -> problems.add("device " + d.getName() + ": " + p));
    }
    return problems;
  }

  /** Pool names: one or more DNS subdomains separated by {@code /}, at most 253 characters. */
  static boolean validPoolName(String pool) {
    if (pool.isEmpty() || pool.length() > 253) {
      return false;
    }
    for (String part : pool.split("/", -1)) {
      if (!Names.isDnsSubdomain(part)) {
        return false;
      }
    }
    return true;
  }

  private static java.util.Optional<String> qualifiedNameProblem(String name) {
    try {
      Names.requireQualifiedName(name);
      return java.util.Optional.empty();
    } catch (IllegalArgumentException e) {
      return java.util.Optional.of(e.getMessage());
    }
  }

  private static java.util.Optional<String> attributeProblem(String name, DeviceAttribute a) {
    int set = 0;
    set += a.getInt() != null ? 1 : 0;
    set += a.getBool() != null ? 1 : 0;
    set += a.getString() != null ? 1 : 0;
    set += a.getVersion() != null ? 1 : 0;
    set += a.getInts() != null && !a.getInts().isEmpty() ? 1 : 0;
    set += a.getBools() != null && !a.getBools().isEmpty() ? 1 : 0;
    set += a.getStrings() != null && !a.getStrings().isEmpty() ? 1 : 0;
    set += a.getVersions() != null && !a.getVersions().isEmpty() ? 1 : 0;
    if (set != 1) {
      return java.util.Optional.of("attribute " + name + " must have exactly one value, has " + set);
    }
    if (a.getString() != null && a.getString().getBytes(StandardCharsets.UTF_8).length > AttributeValue.MAX_VALUE_BYTES) {
      return java.util.Optional.of("attribute " + name + ": string longer than " + AttributeValue.MAX_VALUE_BYTES + " bytes");
    }
    if (a.getVersion() != null && (a.getVersion().length() > AttributeValue.MAX_VALUE_BYTES
        || !AttributeValue.SEMVER.matcher(a.getVersion()).matches())) {
      return java.util.Optional.of("attribute " + name + ": \"" + a.getVersion() + "\" is not a semantic version of at most 64 bytes");
    }
    return java.util.Optional.empty();
  }
}
