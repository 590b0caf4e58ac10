package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePoolBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code resource.k8s.io/v1} ResourceSlices of one node's pool, built from its devices without any
 * I/O: what {@link ResourceSlicePublisher} writes and what {@code nodeatlas slices} prints are the same
 * objects because both come from {@link #build}.
 *
 * <p>One pool per node, named after the node, {@code spec.nodeName} set (KEP-4381: node-local devices).
 * Devices are sorted by name and cut into slices of at most 128 devices (64 when any device uses
 * taints or consumes counters: ResourceSliceMaxDevices, ...WithTaintsOrConsumesCounters); counter sets
 * (KEP-4815) follow in slices of their own, at most 8 each; slice {@code i} is named {@code <node>-<driver>-<i>}. A device the API
 * server would reject ({@link SliceValidator#deviceProblems}) is left out with one warning, so one bad
 * device never costs the pool. An empty node still publishes one empty slice: an empty pool is not the
 * same as no pool ({@code ResourcePool.resourceSliceCount >= 1}).
 */
public final class NodeSlices {

  public static final String LABEL_NODE = Names.DOMAIN + "/node";
  public static final String LABEL_DRIVER = Names.DOMAIN + "/driver";
  public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
  private static final Pattern LABEL_VALUE = Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");

  /** The slices of the pool, the number of devices in them, and a warning per device left out. */
  public record Built(List<ResourceSlice> slices, int devices, List<String> warnings) {
    public Built {
      slices = List.copyOf(slices);
      warnings = List.copyOf(warnings);
    }
  }

  private final String driver;
  private final String nodeName;
  private final int maxDevicesPerSlice;

  public NodeSlices(String driver, String nodeName) {
    this(driver, nodeName, SliceValidator.MAX_DEVICES);
  }

  NodeSlices(String driver, String nodeName, int maxDevicesPerSlice) {
    this.driver = driver;
    this.nodeName = nodeName;
    this.maxDevicesPerSlice = maxDevicesPerSlice;
  }

  public String driver() {
    return driver;
  }

  public String nodeName() {
    return nodeName;
  }

  /** The pool name: the node's name, so every node publishes its own pool. */
  public String poolName() {
    return nodeName;
  }

  /**
   * The pool's slices for {@code devices} at {@code generation}.
   *
   * @param withoutSharing leave out {@code allowMultipleAllocations} and the capacities' {@code requestPolicy}
   *     (KEP-5075), as an API server with the {@code DRAConsumableCapacity} gate off keeps them
   * @param owner the controlling owner (the Node, so deleting the node garbage-collects the slices);
   *     empty where no API server tells the Node's uid
   */
  public Built build(List<Device> devices, boolean withoutSharing, long generation, Optional<OwnerReference> owner) {
    return build(devices, Map.of(), withoutSharing, generation, owner);
  }

  /**
   * As {@link #build(List, boolean, long, Optional)}, with {@code taints} by device name (KEP-5055
   * {@code Device.taints}: the health monitor's {@code nodeatlas.io/unhealthy}); while any device has one,
   * slices hold at most 64 devices.
   */
  public Built build(List<Device> devices, Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> taints,
      boolean withoutSharing, long generation, Optional<OwnerReference> owner) {
    List<String> warnings = new ArrayList<>();
    List<io.fabric8.kubernetes.api.model.resource.v1.Device> wanted = new ArrayList<>();
    for (Device d : devices.stream().sorted(Comparator.comparing(Device::name)).toList()) {
      io.fabric8.kubernetes.api.model.resource.v1.Device sd = SliceDeviceMapper.toSliceDevice(d);
      if (withoutSharing) {
        sd = withoutSharing(sd);
      }
      List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint> deviceTaints = taints.get(d.name());
      if (deviceTaints != null && !deviceTaints.isEmpty()) {
        sd.setTaints(new ArrayList<>(deviceTaints));
      }
      List<String> problems = SliceValidator.deviceProblems(sd);
      if (problems.isEmpty()) {
        wanted.add(sd);
      } else {
        warnings.add("device " + d.name() + " not published: " + String.join("; ", problems));
      }
    }
    List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> chunks = chunk(wanted);
    List<List<io.fabric8.kubernetes.api.model.resource.v1.CounterSet>> counterChunks = counterSets(devices, warnings);
    int count = chunks.size() + counterChunks.size();
    List<ResourceSlice> slices = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      slices.add(slice(i, chunks.get(i), count, generation, owner));
    }
    // KEP-4815: shared counters live in slices without devices ("only one of sharedCounters or devices"),
    // after the device slices so that those keep their names; devices reference them across the pool.
    for (int i = 0; i < counterChunks.size(); i++) {
      ResourceSlice s = slice(chunks.size() + i, List.of(), count, generation, owner);
      s.getSpec().setDevices(new ArrayList<>()); // an empty list is left out when written, as the API wants
      s.getSpec().setSharedCounters(new ArrayList<>(counterChunks.get(i)));
      slices.add(s);
    }
    return new Built(slices, wanted.size(), warnings);
  }

  /**
   * The devices' counter sets (KEP-4815), valid ones only, by name, at most
   * {@link SliceValidator#MAX_COUNTER_SETS} a slice; empty when no device has any.
   */
  private static List<List<io.fabric8.kubernetes.api.model.resource.v1.CounterSet>> counterSets(List<Device> devices,
      List<String> warnings) {
    java.util.TreeMap<String, io.fabric8.kubernetes.api.model.resource.v1.CounterSet> sets = new java.util.TreeMap<>();
    for (Device d : devices) {
      for (io.nodeatlas.discovery.model.CounterSet c : d.sharedCounters()) {
        var set = SliceDeviceMapper.toCounterSet(c);
        List<String> problems = SliceValidator.counterProblems("counter set " + c.name(), set.getName(), set.getCounters(),
            SliceValidator.MAX_COUNTERS_PER_SET);
        if (!problems.isEmpty()) {
          warnings.add("counter set " + c.name() + " of " + d.name() + " not published: " + String.join("; ", problems));
        } else if (sets.putIfAbsent(c.name(), set) != null) {
          warnings.add("counter set " + c.name() + " of " + d.name() + " not published: another device publishes one "
              + "of that name");
        }
      }
    }
    List<io.fabric8.kubernetes.api.model.resource.v1.CounterSet> all = new ArrayList<>(sets.values());
    List<List<io.fabric8.kubernetes.api.model.resource.v1.CounterSet>> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i += SliceValidator.MAX_COUNTER_SETS) {
      out.add(all.subList(i, Math.min(all.size(), i + SliceValidator.MAX_COUNTER_SETS)));
    }
    return out;
  }

  /** {@code slice} without the fields of consumable capacity (KEP-5075). */
  public static ResourceSlice withoutSharing(ResourceSlice slice) {
    ResourceSlice copy = new ResourceSliceBuilder(slice).build();
    if (copy.getSpec() != null && copy.getSpec().getDevices() != null) {
      copy.getSpec().setDevices(copy.getSpec().getDevices().stream().map(NodeSlices::withoutSharing).toList());
    }
    return copy;
  }

  /** {@code device} without {@code allowMultipleAllocations} and its capacities' {@code requestPolicy}. */
  static io.fabric8.kubernetes.api.model.resource.v1.Device withoutSharing(io.fabric8.kubernetes.api.model.resource.v1.Device device) {
    io.fabric8.kubernetes.api.model.resource.v1.Device copy =
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder(device).withAllowMultipleAllocations(null).build();
    if (copy.getCapacity() != null) {
      Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity> capacity = new java.util.LinkedHashMap<>();
      copy.getCapacity().forEach((name, c) -> capacity.put(name,
          new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder(c).withRequestPolicy(null).build()));
      copy.setCapacity(capacity);
    }
    return copy;
  }

  /** Whether any device of {@code slices} is published as shared (KEP-5075 fields present). */
  public static boolean anySharing(List<ResourceSlice> slices) {
    return slices.stream().filter(s -> s.getSpec() != null && s.getSpec().getDevices() != null)
        .flatMap(s -> s.getSpec().getDevices().stream())
        .anyMatch(d -> Boolean.TRUE.equals(d.getAllowMultipleAllocations())
            || (d.getCapacity() != null && d.getCapacity().values().stream().anyMatch(c -> c.getRequestPolicy() != null)));
  }

  private List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> chunk(
      List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices) {
    List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> out = new ArrayList<>();
    boolean tainted = devices.stream().anyMatch(d -> (d.getTaints() != null && !d.getTaints().isEmpty())
        || (d.getConsumesCounters() != null && !d.getConsumesCounters().isEmpty()));
    // Taints, counter consumption and list attributes (KEP-5491) all lower the API's limit to 64 devices per slice.
    boolean advanced = tainted || SliceValidator.hasListAttributes(devices);
    int per = Math.min(maxDevicesPerSlice, advanced ? SliceValidator.MAX_DEVICES_WITH_TAINTS : SliceValidator.MAX_DEVICES);
    for (int i = 0; i < devices.size(); i += per) {
      out.add(devices.subList(i, Math.min(devices.size(), i + per)));
    }
    if (out.isEmpty()) {
      out.add(List.of());
    }
    return out;
  }

  private ResourceSlice slice(int index, List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices, int count,
      long generation, Optional<OwnerReference> owner) {
    ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(sliceName(index))
        .addToLabels(LABEL_NODE, nodeLabelValue())
        .addToLabels(LABEL_DRIVER, driver)
        .addToLabels(LABEL_MANAGED_BY, "nodeatlas");
    owner.ifPresent(meta::withOwnerReferences);
    ObjectMeta m = meta.build();
    return new ResourceSliceBuilder().withApiVersion("resource.k8s.io/v1").withKind("ResourceSlice").withMetadata(m)
        .withNewSpec()
        .withDriver(driver).withNodeName(nodeName)
        .withPool(new ResourcePoolBuilder().withName(poolName()).withGeneration(generation)
            .withResourceSliceCount((long) count).build())
        .withDevices(new ArrayList<>(devices)).endSpec().build();
  }

  /** {@code <node>-<driver>-<index>}, shortened with a hash when the node name is very long. */
  public String sliceName(int index) {
    String base = nodeName + "-" + driver;
    String suffix = "-" + index;
    if (base.length() + suffix.length() > 253) {
      String hash = sha256(base).substring(0, 10);
      base = base.substring(0, 253 - suffix.length() - hash.length() - 1).replaceAll("[.-]+$", "") + "-" + hash;
    }
    return base + suffix;
  }

  /** The node name when it is a valid label value (the usual case), else a stable hash of it. */
  public String nodeLabelValue() {
    if (nodeName.length() <= 63 && LABEL_VALUE.matcher(nodeName).matches()) {
      return nodeName;
    }
    return "sha256-" + sha256(nodeName).substring(0, 40);
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
