package io.nodeatlas.agent.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.agent.claims.AllocatedClaim;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ClaimMetadata;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedClaim;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.cdi.CdiSpecFile;
import io.nodeatlas.cdi.CdiSpecWriter;
import io.nodeatlas.cdi.CdiValidationException;
import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiNames;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.files.AtomicFiles;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.share.NetworkData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device metadata in the container (KEP-5304): for each request of a prepared claim, a file of the
 * format of k8s.io/dynamic-resource-allocation {@code api/metadata} ({@link MetadataCodec}) with the
 * allocated devices' attributes, as their ResourceSlice publishes them, and, for a network interface, the
 * {@code networkData} the device's family states ({@code DiscoverySource.networkData}, the same the claim's
 * status gets). The file lies under the state directory ({@link MetadataLayout}) and reaches the
 * container read-only through a CDI spec of the claim, {@code <driver>_metadata_<claimUID>.json} of kind
 * {@code <driver>/metadata}, one CDI device {@code <claimUID>-<request>} per request that bind-mounts the
 * request's file; its id goes to the first device of the request in the Prepare answer, as the kubelet
 * plugin helper does ({@code kubeletplugin/draplugin.go} {@code NodePrepareResources},
 * {@code kubeletplugin/metadata.go}).
 *
 * <p>Files are replaced atomically (temporary file and rename, never through a link) and world-readable,
 * as the container's user reads them; their directories are created one by one, never through a link.
 * A recorded claim answered again gets back what a reboot or a crash took: a missing, empty or broken
 * file is written again from the checkpoint's devices and the inventory (the request's subrequest is
 * then no longer known: the base name stands), and the CDI spec, on the tmpfs {@code /var/run/cdi} of
 * most hosts, is written again. Unprepare removes the claim's tree and spec. Failures to write are logged
 * and the claim is answered without metadata, as the helper does; a failure to remove fails Unprepare,
 * which the kubelet repeats.
 */
public final class DeviceMetadataFiles implements ClaimMetadata {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceMetadataFiles.class);

  /** Requests of one claim; the API allows 32 ({@code DeviceRequestsMaxSize}), the rest is a broken tree. */
  static final int MAX_REQUESTS = 64;

  private final MetadataLayout layout;
  private final Path cdiRoot;
  private final String driver;
  private final DeviceInventory inventory;
  private final Function<Device, Optional<NetworkData>> networkData;
  private final boolean enabled;
  /**
   * The claim specs' writer ({@link io.nodeatlas.agent.claims.ClaimSpecStore#writer()}): one index of the
   * CDI directory, so the claim specs' conflict scans never parse these files (with a writer each,
   * concurrent Prepares parsed each other's new specs again and again).
   */
  private final CdiSpecWriter writer;
  /** Claims whose files this process wrote or checked: answered again with a look at the spec alone. */
  private final Set<String> current = ConcurrentHashMap.newKeySet();
  /**
   * One lock per claim UID's stripe: a recorded claim may be answered by two calls at once. Many, so
   * that claims prepared at once rarely wait for each other's IO.
   */
  private final Object[] stripes = new Object[256];

  /**
   * {@code enabled} false: no file is written and answers carry no metadata ids, but Unprepare still
   * removes the files a claim got while it was on.
   */
  public DeviceMetadataFiles(Path stateDir, Path cdiRoot, String driver, DeviceInventory inventory,
      Function<Device, Optional<NetworkData>> networkData, boolean enabled) {
    this(stateDir, cdiRoot, CdiSpecWriter.withoutFsync(), driver, inventory, networkData, enabled);
  }

  /** With {@code writer}, the writer of the other specs of {@code cdiRoot} (the claim specs). */
  public DeviceMetadataFiles(Path stateDir, Path cdiRoot, CdiSpecWriter writer, String driver, DeviceInventory inventory,
      Function<Device, Optional<NetworkData>> networkData, boolean enabled) {
    this.writer = writer;
    this.layout = MetadataLayout.under(stateDir, driver);
    this.cdiRoot = cdiRoot;
    this.driver = driver;
    this.inventory = inventory;
    this.networkData = networkData;
    Optional<String> badVendor = CdiNames.checkVendor(driver);
    badVendor.ifPresent(m -> LOG.warn("device metadata is off: the driver name cannot be a CDI vendor err=\"{}\"", m));
    this.enabled = enabled && badVendor.isEmpty() && Names.isDnsSubdomain(driver);
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new Object();
    }
  }

  /** Where the files lie. */
  public MetadataLayout layout() {
    return layout;
  }

  public boolean enabled() {
    return enabled;
  }

  /** The CDI spec file of a claim's metadata mounts: {@code <driver>_metadata_<uid>.json}, as the helper names its own. */
  public String specFileName(String uid) {
    return driver + "_metadata_" + uid + SpecFormat.JSON.extension();
  }

  /** The CDI id that mounts a request's file. */
  public String cdiId(String uid, String request) {
    return driver + "/metadata=" + uid + "-" + request;
  }

  private Object lock(String uid) {
    return stripes[Math.floorMod(uid.hashCode(), stripes.length)];
  }

  @Override
  public List<PreparedDevice> prepared(ClaimRef claim, AllocatedClaim allocation, List<PreparedDevice> devices) {
    if (!enabled || allocation.results().isEmpty()) {
      return devices;
    }
    Map<String, List<AllocatedDevice>> byRequest = new TreeMap<>();
    allocation.results().forEach(a -> byRequest.computeIfAbsent(a.baseRequest(), r -> new ArrayList<>()).add(a));
    String problem = !MetadataLayout.validUid(claim.uid()) ? "the claim's UID cannot name a directory" : null;
    for (String request : byRequest.keySet()) {
      problem = problem != null ? problem : MetadataLayout.problem(claim.name(), allocation.podClaimName(), request);
    }
    if (problem != null || byRequest.size() > MAX_REQUESTS) {
      LOG.warn("device metadata not written claim={} err=\"{}\"", claim,
          problem != null ? problem : byRequest.size() + " requests, more than " + MAX_REQUESTS);
      return devices;
    }
    String part = MetadataLayout.claimPart(claim.name(), allocation.podClaimName());
    synchronized (lock(claim.uid())) {
      try {
        for (Map.Entry<String, List<AllocatedDevice>> r : byRequest.entrySet()) {
          List<RequestMetadata.DeviceEntry> entries = new ArrayList<>();
          for (AllocatedDevice a : r.getValue()) {
            add(entries, a.pool(), a.device());
          }
          // Every result of a request names the same subrequest, if any (one of firstAvailable is chosen).
          writeFile(claim.uid(), part, r.getKey(), new RequestMetadata(claim.namespace(), claim.name(), claim.uid(), 1,
              allocation.podClaimName(), r.getValue().get(0).request(), entries));
        }
        writeSpec(claim.uid(), part, byRequest.keySet());
        current.add(claim.uid());
        return withIds(devices, claim.uid(), byRequest.keySet());
      } catch (IOException | RuntimeException e) {
        LOG.warn("device metadata not written, the claim's containers get none claim={} err=\"{}\"", claim, e.getMessage());
        try {
          removeFiles(claim.uid());
        } catch (IOException | RuntimeException suppressed) {
          LOG.debug("removing the claim's partial device metadata failed claim={} err=\"{}\"", claim, suppressed.getMessage());
        }
        return devices;
      }
    }
  }

  @Override
  public List<PreparedDevice> restored(PreparedClaim known) {
    ClaimRef claim = known.claim();
    if (!enabled || !MetadataLayout.validUid(claim.uid())) {
      return known.devices();
    }
    Set<String> requests = new TreeSet<>();
    known.devices().forEach(d -> requests.addAll(d.requestNames()));
    synchronized (lock(claim.uid())) {
      try {
        if (current.contains(claim.uid())
            && Files.isRegularFile(cdiRoot.resolve(specFileName(claim.uid())), LinkOption.NOFOLLOW_LINKS)) {
          return withIds(known.devices(), claim.uid(), requests);
        }
        Optional<String> part = claimPart(claim);
        if (part.isEmpty()) {
          return known.devices(); // prepared without metadata (the feature was off, or its write failed)
        }
        for (String request : requests) {
          String podClaimName = part.get().startsWith(MetadataLayout.TEMPLATES + "/")
              ? part.get().substring(MetadataLayout.TEMPLATES.length() + 1) : "";
          String problem = MetadataLayout.problem(claim.name(), podClaimName, request);
          if (problem != null) {
            throw new IOException(problem);
          }
          Path file = layout.hostPath(claim.uid(), part.get(), request);
          if (!intact(file, claim.uid())) {
            List<RequestMetadata.DeviceEntry> entries = new ArrayList<>();
            known.devices().stream().filter(d -> d.requestNames().contains(request)).forEach(d -> add(entries, d.pool(), d.device()));
            writeFile(claim.uid(), part.get(), request, new RequestMetadata(claim.namespace(), claim.name(), claim.uid(), 1,
                podClaimName, request, entries));
            LOG.info("re-created the device metadata of a recorded claim claim={} request={}", claim, request);
          }
        }
        writeSpec(claim.uid(), part.get(), requests);
        current.add(claim.uid());
        return withIds(known.devices(), claim.uid(), requests);
      } catch (IOException | RuntimeException e) {
        LOG.warn("device metadata not re-created, the claim's containers get none claim={} err=\"{}\"", claim, e.getMessage());
        return known.devices();
      }
    }
  }

  @Override
  public void remove(String claimUid) throws IOException {
    if (!MetadataLayout.validUid(claimUid)) {
      return; // no file of ours has such a name
    }
    synchronized (lock(claimUid)) {
      current.remove(claimUid);
      removeFiles(claimUid);
    }
  }

  private void removeFiles(String uid) throws IOException {
    writer.remove(cdiRoot, specFileName(uid));
    Path dir = layout.claimDir(uid);
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    // Links are removed as links, never followed: the walk does not follow them.
    Files.walkFileTree(dir, EnumSet.noneOf(java.nio.file.FileVisitOption.class), 8, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.deleteIfExists(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** The claim's part of the paths as its tree on the host states it; empty when the claim has no tree. */
  private Optional<String> claimPart(ClaimRef claim) throws IOException {
    Path dir = layout.claimDir(claim.uid());
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Path templates = dir.resolve(MetadataLayout.TEMPLATES);
    if (Files.isDirectory(templates, LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> names = Files.newDirectoryStream(templates)) {
        int seen = 0;
        for (Path p : names) {
          String n = p.getFileName().toString();
          if (++seen > MAX_REQUESTS) {
            break;
          }
          if (Names.isDnsLabel(n) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of(MetadataLayout.TEMPLATES + "/" + n);
          }
        }
      }
    }
    if (Names.isDnsSubdomain(claim.name())
        && Files.isDirectory(dir.resolve(MetadataLayout.CLAIMS).resolve(claim.name()), LinkOption.NOFOLLOW_LINKS)
        && !Files.isSymbolicLink(dir.resolve(MetadataLayout.CLAIMS))) {
      return Optional.of(MetadataLayout.CLAIMS + "/" + claim.name());
    }
    return Optional.empty();
  }

  /** Whether {@code file} is a regular file holding a metadata stream of the claim {@code uid}, as written. */
  private static boolean intact(Path file, String uid) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(MetadataCodec.MAX_BYTES + 1);
      Optional<JsonNode> first = MetadataCodec.firstKnown(bytes);
      return first.isPresent() && uid.equals(first.get().path("metadata").path("uid").asText());
    } catch (IOException e) {
      return false;
    }
  }

  /** The device's entry: attributes as published, network data where the family states it; once per device. */
  private void add(List<RequestMetadata.DeviceEntry> entries, String pool, String name) {
    if (entries.stream().anyMatch(e -> e.pool().equals(pool) && e.name().equals(name))) {
      return;
    }
    Optional<Device> d = inventory.device(name);
    Optional<NetworkData> network = d.flatMap(networkData).filter(n -> !n.interfaceName().isEmpty());
    entries.add(new RequestMetadata.DeviceEntry(driver, pool, name, d.map(Device::attributes).orElse(null), network));
  }

  private void writeFile(String uid, String part, String request, RequestMetadata content) throws IOException {
    byte[] bytes = MetadataCodec.encode(content);
    Path file = layout.hostPath(uid, part, request);
    mkdirs(file.getParent());
    AtomicFiles.replace(file, bytes, AtomicFiles.WORLD_READABLE);
  }

  /**
   * Creates {@code dir} and its parents down from the state directory, one at a time, refusing a link or
   * a file where a directory goes (a link would send our writes elsewhere).
   */
  private void mkdirs(Path dir) throws IOException {
    Path stateDir = layout.root().getParent();
    Path at = stateDir;
    for (Path segment : stateDir.relativize(dir)) {
      at = at.resolve(segment);
      try {
        Files.createDirectory(at, DIRECTORY_MODE);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
          throw new IOException(at + " is in the way of the device metadata (a file or a link, not a directory)", e);
        }
      } catch (NoSuchFileException e) {
        throw new IOException("the state directory " + stateDir + " is missing", e);
      }
    }
  }

  private static final java.nio.file.attribute.FileAttribute<Set<java.nio.file.attribute.PosixFilePermission>> DIRECTORY_MODE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"));

  /** The claim's CDI spec: per request a device that bind-mounts the request's file read-only. */
  private void writeSpec(String uid, String part, Set<String> requests) throws IOException {
    List<CdiDevice> devices = new ArrayList<>();
    for (String request : requests) {
      CdiContainerEdits.Mount mount = new CdiContainerEdits.Mount(layout.hostPath(uid, part, request).toString(),
          layout.containerPath(part, request), null, List.of("ro", "bind"));
      devices.add(new CdiDevice(uid + "-" + request, new CdiContainerEdits(List.of(), List.of(), List.of(), List.of(mount))));
    }
    CdiSpec draft = new CdiSpec(CdiVersion.EARLIEST.text(), driver + "/metadata", null, devices, null);
    CdiSpec spec = draft.withCdiVersion(CdiVersion.minimumRequired(draft).text());
    try {
      // Kind <driver>/metadata and names <uid>-<request> are this class's alone: no conflict scan, which
      // cost as much as the claim spec's own (a listing and a stat of every spec of the directory).
      writer.writeUnique(cdiRoot, new CdiSpecFile(specFileName(uid), spec, SpecFormat.JSON));
    } catch (CdiValidationException e) {
      throw new IOException("the device metadata CDI spec is invalid: " + e.getMessage(), e);
    }
  }

  /** {@code devices} with each request's metadata id added to the request's first device (once). */
  private List<PreparedDevice> withIds(List<PreparedDevice> devices, String uid, Set<String> requests) {
    Map<Integer, List<String>> added = new LinkedHashMap<>();
    for (String request : requests) {
      for (int i = 0; i < devices.size(); i++) {
        if (devices.get(i).requestNames().contains(request)) {
          added.computeIfAbsent(i, k -> new ArrayList<>()).add(cdiId(uid, request));
          break;
        }
      }
    }
    List<PreparedDevice> out = new ArrayList<>(devices);
    added.forEach((i, ids) -> {
      PreparedDevice d = devices.get(i);
      List<String> all = new ArrayList<>(d.cdiDeviceIds());
      ids.stream().filter(id -> !all.contains(id)).forEach(all::add);
      out.set(i, new PreparedDevice(d.requestNames(), d.pool(), d.device(), all, d.shareId(), d.consumedCapacity(), d.placement()));
    });
    return out;
  }
}
