package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePoolBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
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
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's pool of {@code resource.k8s.io/v1} ResourceSlices equal to the discovered
 * devices (KEP-4381: the driver publishes its node-local devices as one pool).
 *
 * <p>One pool per node, named after the node, {@code spec.nodeName} set and the Node as controlling
 * owner (node deletion garbage-collects the slices). Devices are sorted by name and cut into slices of
 * at most 128 (64 when taints are used); slice {@code i} is named {@code <node>-<driver>-<i>}. A sync
 * reads the pool's slices and writes only when they differ from the desired ones: then every slice
 * gets the next pool generation and the right {@code resourceSliceCount}, obsolete slices are deleted
 * first, existing ones updated, missing ones created (the order the upstream controller uses, so a
 * consumer never sees two complete generations). Slices removed by someone else (the kubelet wipes
 * them when it starts) are simply missing on the next sync and re-created.
 *
 * <p>Slices are found by label ({@code nodeatlas.io/node}, {@code nodeatlas.io/driver}) and then
 * filtered on {@code spec.nodeName}/{@code spec.driver}; a label selector works on every API server,
 * including fabric8's mock, which ignores field selectors.
 */
public final class ResourceSlicePublisher {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceSlicePublisher.class);

  public static final String LABEL_NODE = Names.DOMAIN + "/node";
  public static final String LABEL_DRIVER = Names.DOMAIN + "/driver";
  public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
  private static final Pattern LABEL_VALUE = Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");

  private final KubernetesClient client;
  private final String driver;
  private final String nodeName;
  private final int maxDevicesPerSlice;
  private String nodeUid;
  private long lastGeneration;
  /**
   * The API server did not keep {@code allowMultipleAllocations} and {@code requestPolicy} in the slices
   * we wrote: it drops fields of a disabled feature gate (KEP-5075's {@code DRAConsumableCapacity}), so
   * publishing them again would only rewrite the pool on every sync. Shared devices are then published
   * as the server keeps them, exclusive.
   */
  private boolean sharingDropped;

  public ResourceSlicePublisher(KubernetesClient client, String driver, String nodeName) {
    this(client, driver, nodeName, SliceValidator.MAX_DEVICES);
  }

  ResourceSlicePublisher(KubernetesClient client, String driver, String nodeName, int maxDevicesPerSlice) {
    this.client = client;
    this.driver = driver;
    this.nodeName = nodeName;
    this.maxDevicesPerSlice = maxDevicesPerSlice;
  }

  /** The pool name: the node's name, so every node publishes its own pool. */
  public String poolName() {
    return nodeName;
  }

  /** Brings the API in line with {@code devices}; thread-confined (one caller at a time). */
  public synchronized PublishResult sync(List<Device> devices) throws PublishException {
    try {
      return doSync(devices);
    } catch (KubernetesClientException e) {
      throw new PublishException("publishing ResourceSlices failed: " + describe(e), e);
    }
  }

  private PublishResult doSync(List<Device> devices) throws PublishException {
    List<String> warnings = new ArrayList<>();
    List<io.fabric8.kubernetes.api.model.resource.v1.Device> wanted = new ArrayList<>();
    for (Device d : devices.stream().sorted(Comparator.comparing(Device::name)).toList()) {
      io.fabric8.kubernetes.api.model.resource.v1.Device sd = SliceDeviceMapper.toSliceDevice(d);
      if (sharingDropped) {
        sd = withoutSharing(sd);
      }
      List<String> problems = SliceValidator.deviceProblems(sd);
      if (problems.isEmpty()) {
        wanted.add(sd);
      } else {
        warnings.add("device " + d.name() + " not published: " + String.join("; ", problems));
      }
    }
    List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> chunks = chunk(wanted);

    Map<String, ResourceSlice> existing = new TreeMap<>();
    for (ResourceSlice s : client.resources(ResourceSlice.class).withLabel(LABEL_NODE, nodeLabelValue())
        .withLabel(LABEL_DRIVER, driver).list().getItems()) {
      if (s.getSpec() != null && nodeName.equals(s.getSpec().getNodeName()) && driver.equals(s.getSpec().getDriver())) {
        existing.put(s.getMetadata().getName(), s);
      }
    }
    OwnerReference owner = ownerReference();

    long currentGeneration = existing.values().stream().mapToLong(ResourceSlicePublisher::generation).max().orElse(-1);
    List<ResourceSlice> desired = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      desired.add(slice(i, chunks.get(i), chunks.size(), Math.max(currentGeneration, 0), owner));
    }
    if (matches(existing, desired)) {
      lastGeneration = Math.max(lastGeneration, currentGeneration);
      return new PublishResult(currentGeneration, desired.size(), wanted.size(), 0, 0, 0, warnings);
    }
    if (!sharingDropped && currentGeneration == lastGeneration && lastGeneration > 0
        && matches(existing, desired.stream().map(ResourceSlicePublisher::withoutSharing).toList())) {
      // What we wrote last came back without the sharing fields: the server does not keep them.
      sharingDropped = true;
      LOG.warn("the API server does not keep allowMultipleAllocations and requestPolicy (is the DRAConsumableCapacity "
          + "feature gate off?); devices are published without them, that is as exclusive devices");
      return new PublishResult(currentGeneration, desired.size(), wanted.size(), 0, 0, 0, warnings);
    }

    long generation = Math.max(currentGeneration, lastGeneration) + 1;
    desired.replaceAll(s -> new ResourceSliceBuilder(s).editSpec().editPool().withGeneration(generation)
        .endPool().endSpec().build());
    for (ResourceSlice s : desired) {
      List<String> problems = SliceValidator.sliceProblems(s);
      if (!problems.isEmpty()) {
        throw new PublishException("slice " + s.getMetadata().getName() + " would be rejected: "
            + String.join("; ", problems), null);
      }
    }

    int deleted = 0;
    int updated = 0;
    int created = 0;
    List<String> desiredNames = desired.stream().map(s -> s.getMetadata().getName()).toList();
    for (ResourceSlice old : existing.values()) {
      if (!desiredNames.contains(old.getMetadata().getName())) {
        client.resource(old).delete();
        deleted++;
      }
    }
    for (ResourceSlice s : desired) {
      ResourceSlice old = existing.get(s.getMetadata().getName());
      if (old != null) {
        s.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
        client.resource(s).update();
        updated++;
      }
    }
    for (ResourceSlice s : desired) {
      if (!existing.containsKey(s.getMetadata().getName())) {
        client.resource(s).create();
        created++;
      }
    }
    lastGeneration = generation;
    LOG.info("published ResourceSlices node={} pool={} generation={} slices={} devices={} created={} updated={} deleted={}",
        nodeName, poolName(), generation, desired.size(), wanted.size(), created, updated, deleted);
    return new PublishResult(generation, desired.size(), wanted.size(), created, updated, deleted, warnings);
  }

  /** {@code slice} without the fields of consumable capacity (KEP-5075). */
  static ResourceSlice withoutSharing(ResourceSlice slice) {
    ResourceSlice copy = new ResourceSliceBuilder(slice).build();
    if (copy.getSpec() != null && copy.getSpec().getDevices() != null) {
      copy.getSpec().setDevices(copy.getSpec().getDevices().stream().map(ResourceSlicePublisher::withoutSharing).toList());
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

  /**
   * Calls {@code onChange} whenever one of our slices is deleted or modified by anyone; the caller
   * then syncs (and so re-creates what the kubelet wiped).
   */
  public Watch watch(Runnable onChange) {
    return client.resources(ResourceSlice.class).withLabel(LABEL_NODE, nodeLabelValue()).withLabel(LABEL_DRIVER, driver)
        .watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, ResourceSlice resource) {
            if (action == Action.DELETED) {
              LOG.info("ResourceSlice {} was deleted; publishing again", resource.getMetadata().getName());
              onChange.run();
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            LOG.warn("ResourceSlice watch closed err=\"{}\"; the periodic resync still runs", cause.getMessage());
          }
        });
  }

  private List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> chunk(
      List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices) {
    List<List<io.fabric8.kubernetes.api.model.resource.v1.Device>> out = new ArrayList<>();
    boolean tainted = devices.stream().anyMatch(d -> d.getTaints() != null && !d.getTaints().isEmpty());
    int per = Math.min(maxDevicesPerSlice, tainted ? SliceValidator.MAX_DEVICES_WITH_TAINTS : SliceValidator.MAX_DEVICES);
    for (int i = 0; i < devices.size(); i += per) {
      out.add(devices.subList(i, Math.min(devices.size(), i + per)));
    }
    if (out.isEmpty()) {
      // An empty pool is not the same as no pool (ResourcePool.resourceSliceCount >= 1): publish one empty slice.
      out.add(List.of());
    }
    return out;
  }

  private ResourceSlice slice(int index, List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices, int count,
      long generation, OwnerReference owner) {
    ObjectMeta meta = new ObjectMetaBuilder().withName(sliceName(index))
        .addToLabels(LABEL_NODE, nodeLabelValue())
        .addToLabels(LABEL_DRIVER, driver)
        .addToLabels(LABEL_MANAGED_BY, "nodeatlas")
        .withOwnerReferences(owner).build();
    return new ResourceSliceBuilder().withMetadata(meta).withNewSpec()
        .withDriver(driver).withNodeName(nodeName)
        .withPool(new ResourcePoolBuilder().withName(poolName()).withGeneration(generation)
            .withResourceSliceCount((long) count).build())
        .withDevices(new ArrayList<>(devices)).endSpec().build();
  }

  /** True when the API holds exactly the desired slices at one generation (nothing to write). */
  private static boolean matches(Map<String, ResourceSlice> existing, List<ResourceSlice> desired) {
    if (existing.size() != desired.size()) {
      return false;
    }
    long generation = -1;
    for (ResourceSlice want : desired) {
      ResourceSlice have = existing.get(want.getMetadata().getName());
      if (have == null) {
        return false;
      }
      ResourceSliceSpec h = have.getSpec();
      ResourceSliceSpec w = want.getSpec();
      if (generation >= 0 && generation != generation(have)) {
        return false;
      }
      generation = generation(have);
      if (!Objects.equals(h.getPool().getName(), w.getPool().getName())
          || !Objects.equals(h.getPool().getResourceSliceCount(), w.getPool().getResourceSliceCount())
          || !Objects.equals(h.getDevices(), w.getDevices())
          || !Objects.equals(have.getMetadata().getOwnerReferences(), want.getMetadata().getOwnerReferences())) {
        return false;
      }
    }
    return true;
  }

  private static long generation(ResourceSlice s) {
    Long g = s.getSpec() == null || s.getSpec().getPool() == null ? null : s.getSpec().getPool().getGeneration();
    return g == null ? 0 : g;
  }

  private OwnerReference ownerReference() throws PublishException {
    if (nodeUid == null) {
      Node node = client.nodes().withName(nodeName).get();
      if (node == null) {
        throw new PublishException("Node " + nodeName + " does not exist in the API server; check --node-name", null);
      }
      nodeUid = node.getMetadata().getUid();
    }
    return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeUid)
        .withController(true).build();
  }

  /** {@code <node>-<driver>-<index>}, shortened with a hash when the node name is very long. */
  String sliceName(int index) {
    String base = nodeName + "-" + driver;
    String suffix = "-" + index;
    if (base.length() + suffix.length() > 253) {
      String hash = sha256(base).substring(0, 10);
      base = base.substring(0, 253 - suffix.length() - hash.length() - 1).replaceAll("[.-]+$", "") + "-" + hash;
    }
    return base + suffix;
  }

  /** The node name when it is a valid label value (the usual case), else a stable hash of it. */
  String nodeLabelValue() {
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

  static String describe(KubernetesClientException e) {
    String m = e.getCode() > 0 ? "HTTP " + e.getCode() + ": " + e.getMessage() : e.getMessage();
    if (e.getCause() != null && e.getCode() == 0) {
      m += " (" + e.getCause() + ")";
    }
    return m;
  }
}
