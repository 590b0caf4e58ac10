package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.api.ApiException;
import io.nodeatlas.agent.api.Fabric8SliceApi;
import io.nodeatlas.agent.api.SliceApi;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's pool of {@code resource.k8s.io/v1} ResourceSlices equal to the discovered
 * devices (KEP-4381: the driver publishes its node-local devices as one pool).
 *
 * <p>The slices themselves come from {@link NodeSlices#build} (the same objects {@code nodeatlas slices}
 * prints), with the Node as controlling owner (node deletion garbage-collects the slices). A sync
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

  public static final String LABEL_NODE = NodeSlices.LABEL_NODE;
  public static final String LABEL_DRIVER = NodeSlices.LABEL_DRIVER;
  public static final String LABEL_MANAGED_BY = NodeSlices.LABEL_MANAGED_BY;

  /** What the API server does with the fields of shared devices (KEP-5075), as far as we have seen. */
  public enum Sharing {
    /** Nothing shared was written yet, so nothing is known. */
    UNKNOWN,
    /** A slice with shared devices was written and read back with the fields. */
    KEPT,
    /** A slice with shared devices came back without them: the server drops them. */
    DROPPED
  }

  private final SliceApi api;
  private final NodeSlices pool;
  private final String driver;
  private final String nodeName;
  private String nodeUid;
  private long lastGeneration;
  /**
   * Whether the API server keeps {@code allowMultipleAllocations} and {@code requestPolicy} in the slices
   * we write. A server drops fields of a disabled feature gate (KEP-5075's {@code DRAConsumableCapacity},
   * alpha in 1.34, and every server that does not know them) without an error, so the only way to know
   * is to read the slice back and compare. Once dropped, shared devices are published as the server
   * keeps them, exclusive, so the pool is not rewritten on every sync.
   */
  private volatile Sharing sharing = Sharing.UNKNOWN;

  public ResourceSlicePublisher(KubernetesClient client, String driver, String nodeName) {
    this(new Fabric8SliceApi(client), driver, nodeName, SliceValidator.MAX_DEVICES);
  }

  public ResourceSlicePublisher(SliceApi api, String driver, String nodeName) {
    this(api, driver, nodeName, SliceValidator.MAX_DEVICES);
  }

  ResourceSlicePublisher(KubernetesClient client, String driver, String nodeName, int maxDevicesPerSlice) {
    this(new Fabric8SliceApi(client), driver, nodeName, maxDevicesPerSlice);
  }

  ResourceSlicePublisher(SliceApi api, String driver, String nodeName, int maxDevicesPerSlice) {
    this.api = api;
    this.pool = new NodeSlices(driver, nodeName, maxDevicesPerSlice);
    this.driver = driver;
    this.nodeName = nodeName;
  }

  /** The pool name: the node's name, so every node publishes its own pool. */
  public String poolName() {
    return pool.poolName();
  }

  /** What the API server was seen to do with the fields of shared devices (never waits for a sync in progress). */
  public Sharing sharing() {
    return sharing;
  }

  /** Brings the API in line with {@code devices}; thread-confined (one caller at a time). */
  public synchronized PublishResult sync(List<Device> devices) throws PublishException {
    return sync(devices, Map.of());
  }

  /**
   * As {@link #sync(List)}, with the devices' taints by name (KEP-5055; the health monitor's). A taint the
   * server already holds keeps its {@code timeAdded}, as the upstream controller does.
   */
  public synchronized PublishResult sync(List<Device> devices,
      Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> taints) throws PublishException {
    try {
      return doSync(devices, taints);
    } catch (ApiException e) {
      throw new PublishException("publishing ResourceSlices failed: " + e.getMessage(), e);
    }
  }

  private PublishResult doSync(List<Device> devices,
      Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> taints) throws PublishException, ApiException {
    boolean dropped = sharing == Sharing.DROPPED;
    Map<String, ResourceSlice> existing = new TreeMap<>();
    for (ResourceSlice s : api.list(labels()).items()) {
      if (s.getSpec() != null && nodeName.equals(s.getSpec().getNodeName()) && driver.equals(s.getSpec().getDriver())) {
        existing.put(s.getMetadata().getName(), s);
      }
    }
    Optional<OwnerReference> owner = Optional.of(ownerReference());

    long currentGeneration = existing.values().stream().mapToLong(ResourceSlicePublisher::generation).max().orElse(-1);
    NodeSlices.Built built = pool.build(devices, keepTimeAdded(existing, taints), dropped, Math.max(currentGeneration, 0), owner);
    List<String> warnings = built.warnings();
    List<ResourceSlice> desired = new ArrayList<>(built.slices());
    if (matches(existing, desired)) {
      lastGeneration = Math.max(lastGeneration, currentGeneration);
      if (!dropped && NodeSlices.anySharing(desired)) {
        sharing = Sharing.KEPT;
      }
      return new PublishResult(currentGeneration, desired.size(), built.devices(), 0, 0, 0, warnings);
    }
    if (!dropped && currentGeneration == lastGeneration && lastGeneration > 0
        && matches(existing, desired.stream().map(NodeSlices::withoutSharing).toList())) {
      // What we wrote last came back without the sharing fields: the server does not keep them.
      sharingDropped();
      return new PublishResult(currentGeneration, desired.size(), built.devices(), 0, 0, 0, warnings);
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
    List<ResourceSlice> written = new ArrayList<>();
    List<ResourceSlice> stored = new ArrayList<>();
    List<String> desiredNames = desired.stream().map(s -> s.getMetadata().getName()).toList();
    for (ResourceSlice old : existing.values()) {
      if (!desiredNames.contains(old.getMetadata().getName())) {
        api.delete(old.getMetadata().getName());
        deleted++;
      }
    }
    for (ResourceSlice s : desired) {
      ResourceSlice old = existing.get(s.getMetadata().getName());
      if (old != null) {
        s.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
        written.add(s);
        stored.add(api.update(s));
        updated++;
      }
    }
    for (ResourceSlice s : desired) {
      if (!existing.containsKey(s.getMetadata().getName())) {
        written.add(s);
        stored.add(api.create(s));
        created++;
      }
    }
    lastGeneration = generation;
    if (!dropped) {
      readBack(written, stored);
    }
    LOG.info("published ResourceSlices node={} pool={} generation={} slices={} devices={} created={} updated={} deleted={}",
        nodeName, poolName(), generation, desired.size(), built.devices(), created, updated, deleted);
    return new PublishResult(generation, desired.size(), built.devices(), created, updated, deleted, warnings);
  }

  /**
   * Compares what the server answered to our writes (the object as stored) with what we sent: shared
   * devices that come back without {@code allowMultipleAllocations} or {@code requestPolicy} mean the
   * server drops them.
   */
  private void readBack(List<ResourceSlice> written, List<ResourceSlice> stored) {
    if (!NodeSlices.anySharing(written)) {
      return;
    }
    boolean anyStored = false;
    for (int i = 0; i < written.size(); i++) {
      ResourceSlice back = stored.get(i);
      if (back == null || back.getSpec() == null) {
        continue;
      }
      anyStored = true;
      if (NodeSlices.anySharing(List.of(written.get(i))) && !NodeSlices.anySharing(List.of(back))) {
        sharingDropped();
        return;
      }
    }
    if (anyStored) {
      sharing = Sharing.KEPT;
    }
  }

  private void sharingDropped() {
    sharing = Sharing.DROPPED;
    LOG.warn("the API server dropped allowMultipleAllocations and requestPolicy from our ResourceSlices: it does not "
        + "support shared devices (the DRAConsumableCapacity feature gate is off, or the server is older than 1.36); "
        + "shared devices are published as exclusive ones and discovery runs again for exclusive devices (CPUs: one "
        + "device per physical core). Fix: enable the DRAConsumableCapacity feature gate on the API server, scheduler "
        + "and kubelet, or choose the per-core CPU devices explicitly with the CPU source's setting "
        + "(nodeatlas run --help lists it)");
  }

  /** {@code taints} with the {@code timeAdded} the server set on the same taint (key, value, effect) of the same device. */
  private static Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> keepTimeAdded(
      Map<String, ResourceSlice> existing, Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> taints) {
    if (taints.isEmpty()) {
      return taints;
    }
    Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> held = new java.util.HashMap<>();
    for (ResourceSlice s : existing.values()) {
      if (s.getSpec() != null && s.getSpec().getDevices() != null) {
        s.getSpec().getDevices().stream().filter(d -> d.getTaints() != null && !d.getTaints().isEmpty())
            .forEach(d -> held.put(d.getName(), d.getTaints()));
      }
    }
    Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> out = new java.util.LinkedHashMap<>();
    taints.forEach((name, list) -> out.put(name, list.stream().map(t -> held.getOrDefault(name, List.of()).stream()
        .filter(h -> Objects.equals(h.getKey(), t.getKey()) && Objects.equals(h.getValue(), t.getValue())
            && Objects.equals(h.getEffect(), t.getEffect()) && h.getTimeAdded() != null)
        .findFirst()
        .map(h -> new io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder(t).withTimeAdded(h.getTimeAdded()).build())
        .orElse(t)).toList()));
    return out;
  }

  /** {@code slice} without the fields of consumable capacity (KEP-5075). */
  static ResourceSlice withoutSharing(ResourceSlice slice) {
    return NodeSlices.withoutSharing(slice);
  }

  /**
   * Calls {@code onChange} whenever one of our slices is deleted by anyone, or the watch had to list
   * again (events may be lost); the caller then syncs (and so re-creates what the kubelet wiped).
   */
  public SliceApi.Watch watch(Runnable onChange) {
    return watch(onChange, () -> { });
  }

  /** {@link #watch(Runnable)}, calling {@code onClosed} when the watch ends for good. */
  public SliceApi.Watch watch(Runnable onChange, Runnable onClosed) {
    return api.watch(labels(), new SliceApi.Listener() {
      @Override
      public void deleted(String name) {
        LOG.info("ResourceSlice {} was deleted; publishing again", name);
        onChange.run();
      }

      @Override
      public void relisted() {
        LOG.info("ResourceSlice watch listed again (its version expired); publishing again");
        onChange.run();
      }

      @Override
      public void closed(ApiException cause) {
        LOG.warn("ResourceSlice watch closed err=\"{}\"; the periodic resync still runs, and the watch is replaced",
            cause.getMessage());
        onClosed.run();
      }
    });
  }

  /** The labels that find this node's slices of this driver. */
  private Map<String, String> labels() {
    Map<String, String> l = new TreeMap<>();
    l.put(LABEL_NODE, nodeLabelValue());
    l.put(LABEL_DRIVER, driver);
    return l;
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
          || !Objects.equals(h.getSharedCounters(), w.getSharedCounters())
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

  private OwnerReference ownerReference() throws PublishException, ApiException {
    if (nodeUid == null) {
      nodeUid = api.nodeUid(nodeName).orElseThrow(
          () -> new PublishException("Node " + nodeName + " does not exist in the API server; check --node-name", null));
    }
    return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeUid)
        .withController(true).build();
  }

  String sliceName(int index) {
    return pool.sliceName(index);
  }

  String nodeLabelValue() {
    return pool.nodeLabelValue();
  }
}
