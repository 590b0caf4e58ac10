package io.nodeatlas.agent.metadata;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.agent.claims.AllocatedClaim;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ClaimMetadata;
import io.nodeatlas.agent.claims.ClaimMount;
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
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
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
 * container read-only through the claim's own CDI spec: one CDI device {@code <claimUID>-metadata_<request>}
 * per request that bind-mounts the request's file ({@link ClaimMount}), whose id goes to the first device of
 * the request in the Prepare answer and into the checkpoint with it (KEP-5304 "Design Details", steps 4–6:
 * a CDI device per claim and request that mounts the file, its id appended to the answer; the upstream
 * helper writes a spec of its own, {@code kubeletplugin/metadata.go}, since it does not own the driver's).
 * So a Prepare writes one spec and an Unprepare removes one.
 *
 * <p>Claims prepared by the previous version have a metadata spec of their own,
 * {@code <driver>_metadata_<claimUID>.json} of kind {@code <driver>/metadata}, and were answered with its ids,
 * which the checkpoint does not record: a recorded claim whose ids name no metadata mount but whose
 * files exist is answered with those ids again and keeps (or gets back) that spec; Unprepare removes it.
 *
 * <p>Files are replaced atomically (temporary file and rename, never through a link) and world-readable,
 * as the container's user reads them; their directories are created one by one, never through a link.
 * A recorded claim answered again gets back what a reboot or a crash took: a missing, empty or broken
 * file is written again from the checkpoint's devices and the inventory (the request's subrequest is
 * then no longer known: the base name stands). Unprepare removes the claim's tree. Failures to write are
 * logged and the claim is answered without metadata, as the helper does; a failure to remove fails
 * Unprepare, which the kubelet repeats.
 */
public final class DeviceMetadataFiles implements ClaimMetadata {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceMetadataFiles.class);

  /** Requests of one claim; the API allows 32 ({@code DeviceRequestsMaxSize}), the rest is a broken tree. */
  static final int MAX_REQUESTS = 64;
  /** Between the claim UID and the request in a mount's CDI device name: no device name holds {@code _} (DNS labels). */
  public static final String MOUNT_INFIX = "-metadata_";

  private final MetadataLayout layout;
  private final Path cdiRoot;
  private final String driver;
  private final DeviceInventory inventory;
  private final Function<Device, Optional<NetworkData>> networkData;
  private final boolean enabled;
  /** The writer of the claim specs ({@link io.nodeatlas.agent.claims.ClaimSpecStore#writer()}), for the previous version's specs. */
  private final CdiSpecWriter writer;
  /** Claims whose files this process wrote or checked, with their part of the paths: answered again without IO. */
  private final Map<String, Tree> current = new ConcurrentHashMap<>();

  /** A claim's tree as this process wrote or checked it: its part of the paths and its requests' directories. */
  private record Tree(String part, List<String> requests) {}
  /** Claims of the previous version's kind whose spec this process wrote or checked. */
  private final Set<String> legacyCurrent = ConcurrentHashMap.newKeySet();
  /**
   * One lock per claim UID's stripe: a recorded claim may be answered by two calls at once. Many, so
   * that claims prepared at once rarely wait for each other's IO.
   */
  private final Object[] stripes = new Object[256];
  /**
   * Each device's entry as encoded in a file, by what it is made of ({@link EntryKey}; a speed path for
   * bench/prepare.sh, docs/design/speed-paths.md): every claim of a device writes the same entry. About
   * 1.3 KB per device with a dozen attributes (the text and its UTF-8 bytes); emptied when it holds
   * {@link #MAX_ENCODED_ENTRIES}, so devices that come and go cannot grow it.
   */
  private final Map<EntryKey, Encoded> encodedEntries = new ConcurrentHashMap<>();
  static final int MAX_ENCODED_ENTRIES = 1024;

  /**
   * {@code enabled} false: no file is written and answers carry no metadata ids, but Unprepare still
   * removes the files a claim got while it was on, and a claim recorded with mounts keeps them.
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

  /** The CDI device of the claim's spec that mounts a request's file. */
  public static String mountName(String uid, String request) {
    return uid + MOUNT_INFIX + request;
  }

  /** The previous version's CDI spec of a claim's metadata mounts: {@code <driver>_metadata_<uid>.json}. */
  public String legacySpecFileName(String uid) {
    return driver + "_metadata_" + uid + SpecFormat.JSON.extension();
  }

  /** The previous version's CDI id that mounts a request's file. */
  public String legacyCdiId(String uid, String request) {
    return driver + "/metadata=" + uid + "-" + request;
  }

  private Object lock(String uid) {
    return stripes[Math.floorMod(uid.hashCode(), stripes.length)];
  }

  @Override
  public SortedMap<String, ClaimMount> write(ClaimRef claim, AllocatedClaim allocation) {
    SortedMap<String, ClaimMount> mounts = new TreeMap<>();
    if (!enabled || allocation.results().isEmpty()) {
      return mounts;
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
      return mounts;
    }
    String part = MetadataLayout.claimPart(claim.name(), allocation.podClaimName());
    synchronized (lock(claim.uid())) {
      try {
        for (Map.Entry<String, List<AllocatedDevice>> r : byRequest.entrySet()) {
          List<RequestMetadata.DeviceEntry> entries = new ArrayList<>();
          Map<RequestMetadata.DeviceEntry, SerializableString> encoded = new IdentityHashMap<>();
          for (AllocatedDevice a : r.getValue()) {
            add(entries, encoded, a.pool(), a.device());
          }
          // Every result of a request names the same subrequest, if any (one of firstAvailable is chosen).
          writeFile(claim.uid(), part, r.getKey(), new RequestMetadata(claim.namespace(), claim.name(), claim.uid(), 1,
              allocation.podClaimName(), r.getValue().get(0).request(), entries), encoded);
          mounts.put(r.getKey(), mount(claim.uid(), part, r.getKey()));
        }
        current.put(claim.uid(), new Tree(part, List.copyOf(byRequest.keySet())));
        return mounts;
      } catch (IOException | RuntimeException e) {
        LOG.warn("device metadata not written, the claim's containers get none claim={} err=\"{}\"", claim, e.getMessage());
        try {
          removeFiles(claim.uid(), false);
        } catch (IOException | RuntimeException suppressed) {
          LOG.debug("removing the claim's partial device metadata failed claim={} err=\"{}\"", claim, suppressed.getMessage());
        }
        return new TreeMap<>();
      }
    }
  }

  private ClaimMount mount(String uid, String part, String request) {
    return new ClaimMount(mountName(uid, request), layout.hostPath(uid, part, request).toString(),
        layout.containerPath(part, request));
  }

  /** The requests whose mounts the claim's recorded ids name. */
  private static Set<String> recordedRequests(PreparedClaim known) {
    String prefix = known.claim().uid() + MOUNT_INFIX;
    Set<String> requests = new TreeSet<>();
    for (PreparedDevice d : known.devices()) {
      for (String id : d.cdiDeviceIds()) {
        int eq = id.indexOf('=');
        if (eq > 0 && id.startsWith(prefix, eq + 1)) {
          requests.add(id.substring(eq + 1 + prefix.length()));
        }
      }
    }
    return requests;
  }

  @Override
  public Restored restore(PreparedClaim known) {
    ClaimRef claim = known.claim();
    if (!MetadataLayout.validUid(claim.uid())) {
      return new Restored(List.of(), known.devices());
    }
    Set<String> requests = recordedRequests(known);
    if (requests.isEmpty()) {
      return new Restored(List.of(), restoredLegacy(known));
    }
    synchronized (lock(claim.uid())) {
      Tree tree = current.get(claim.uid());
      String part = tree == null ? null : tree.part();
      if (part == null) {
        try {
          part = claimPart(claim).orElse(null);
          if (part == null) {
            // The tree is gone (the state directory was emptied): written again where a claim the pod names has it.
            part = MetadataLayout.CLAIMS + "/" + claim.name();
          }
          recreate(known, part, requests);
          current.put(claim.uid(), new Tree(part, List.copyOf(requests)));
        } catch (IOException | RuntimeException e) {
          LOG.warn("device metadata not re-created, the claim's containers may lack it claim={} err=\"{}\"", claim,
              e.getMessage());
          part = part != null ? part : MetadataLayout.CLAIMS + "/" + claim.name();
        }
      }
      List<ClaimMount> mounts = new ArrayList<>();
      for (String request : requests) {
        if (Names.isDnsLabel(request)) {
          mounts.add(mount(claim.uid(), part, request));
        }
      }
      return new Restored(mounts, known.devices());
    }
  }

  /** Writes again each request's file that is missing, empty or broken, from the checkpoint's devices. */
  private void recreate(PreparedClaim known, String part, Set<String> requests) throws IOException {
    ClaimRef claim = known.claim();
    String podClaimName = part.startsWith(MetadataLayout.TEMPLATES + "/") ? part.substring(MetadataLayout.TEMPLATES.length() + 1) : "";
    for (String request : requests) {
      String problem = MetadataLayout.problem(claim.name(), podClaimName, request);
      if (problem != null) {
        throw new IOException(problem);
      }
      Path file = layout.hostPath(claim.uid(), part, request);
      if (!intact(file, claim.uid())) {
        List<RequestMetadata.DeviceEntry> entries = new ArrayList<>();
        Map<RequestMetadata.DeviceEntry, SerializableString> encoded = new IdentityHashMap<>();
        known.devices().stream().filter(d -> d.requestNames().contains(request))
            .forEach(d -> add(entries, encoded, d.pool(), d.device()));
        writeFile(claim.uid(), part, request, new RequestMetadata(claim.namespace(), claim.name(), claim.uid(), 1,
            podClaimName, request, entries), encoded);
        LOG.info("re-created the device metadata of a recorded claim claim={} request={}", claim, request);
      }
    }
  }

  /** A claim prepared by the previous version: its files and its own metadata spec again, answered with that spec's ids. */
  private List<PreparedDevice> restoredLegacy(PreparedClaim known) {
    ClaimRef claim = known.claim();
    if (!enabled) {
      return known.devices();
    }
    Set<String> requests = new TreeSet<>();
    known.devices().forEach(d -> requests.addAll(d.requestNames()));
    synchronized (lock(claim.uid())) {
      try {
        if (legacyCurrent.contains(claim.uid())
            && Files.isRegularFile(cdiRoot.resolve(legacySpecFileName(claim.uid())), LinkOption.NOFOLLOW_LINKS)) {
          return withLegacyIds(known.devices(), claim.uid(), requests);
        }
        Optional<String> part = claimPart(claim);
        if (part.isEmpty()) {
          return known.devices(); // prepared without metadata (the feature was off, or its write failed)
        }
        recreate(known, part.get(), requests);
        writeLegacySpec(claim.uid(), part.get(), requests);
        legacyCurrent.add(claim.uid());
        return withLegacyIds(known.devices(), claim.uid(), requests);
      } catch (IOException | RuntimeException e) {
        LOG.warn("device metadata not re-created, the claim's containers get none claim={} err=\"{}\"", claim, e.getMessage());
        return known.devices();
      }
    }
  }

  private List<PreparedDevice> withLegacyIds(List<PreparedDevice> devices, String uid, Set<String> requests) {
    Map<String, String> ids = new TreeMap<>();
    requests.forEach(r -> ids.put(r, legacyCdiId(uid, r)));
    return ClaimMetadata.withIds(devices, ids);
  }

  @Override
  public void remove(String claimUid) throws IOException {
    if (!MetadataLayout.validUid(claimUid)) {
      return; // no file of ours has such a name
    }
    synchronized (lock(claimUid)) {
      // A claim this process wrote or restored with mounts in its own spec has no spec of the previous version.
      Tree tree = current.remove(claimUid);
      legacyCurrent.remove(claimUid);
      if (tree == null || !removeKnown(claimUid, tree)) {
        removeFiles(claimUid, tree == null);
      }
    }
  }

  /**
   * Removes the tree this process wrote for the claim by its names, without listing or stat'ing it (a
   * speed path for bench/prepare.sh, docs/design/speed-paths.md; the walk of {@link #removeFiles} takes
   * about twice the time): each directory opened below the one above it, never through a link
   * ({@code openat} with {@code O_NOFOLLOW}). False, leaving what is left to the walk, at the first thing
   * that is not as written: a name gone, a link, a directory holding more.
   */
  private boolean removeKnown(String uid, Tree tree) {
    int slash = tree.part().indexOf('/');
    Path kind = Path.of(tree.part().substring(0, slash));
    Path own = Path.of(tree.part().substring(slash + 1));
    Path claim = Path.of(uid);
    Path file = Path.of(layout.fileName());
    try (DirectoryStream<Path> rootStream = Files.newDirectoryStream(layout.root())) {
      if (!(rootStream instanceof SecureDirectoryStream<Path> root)) {
        return false;
      }
      try (SecureDirectoryStream<Path> claimDir = root.newDirectoryStream(claim, LinkOption.NOFOLLOW_LINKS);
          SecureDirectoryStream<Path> kindDir = claimDir.newDirectoryStream(kind, LinkOption.NOFOLLOW_LINKS);
          SecureDirectoryStream<Path> ownDir = kindDir.newDirectoryStream(own, LinkOption.NOFOLLOW_LINKS)) {
        for (String request : tree.requests()) {
          Path r = Path.of(request);
          try (SecureDirectoryStream<Path> requestDir = ownDir.newDirectoryStream(r, LinkOption.NOFOLLOW_LINKS)) {
            requestDir.deleteFile(file);
          }
          ownDir.deleteDirectory(r);
        }
        kindDir.deleteDirectory(own);
        claimDir.deleteDirectory(kind);
      }
      root.deleteDirectory(claim);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private void removeFiles(String uid, boolean legacySpec) throws IOException {
    if (legacySpec) {
      writer.remove(cdiRoot, legacySpecFileName(uid));
    }
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

  /**
   * The device's entry: attributes as published, network data where the family states it; once per device.
   * Its bytes go to {@code encoded}, from those kept for the device since its first claim where there are.
   */
  private void add(List<RequestMetadata.DeviceEntry> entries, Map<RequestMetadata.DeviceEntry, SerializableString> encoded,
      String pool, String name) {
    if (entries.stream().anyMatch(e -> e.pool().equals(pool) && e.name().equals(name))) {
      return;
    }
    Optional<Device> d = inventory.device(name);
    Optional<NetworkData> network = d.flatMap(networkData).filter(n -> !n.interfaceName().isEmpty());
    if (d.isEmpty()) {
      entries.add(new RequestMetadata.DeviceEntry(driver, pool, name, null, network));
      return;
    }
    EntryKey key = new EntryKey(d.get(), pool, network);
    Encoded known = encodedEntries.get(key);
    if (known == null) {
      RequestMetadata.DeviceEntry entry = new RequestMetadata.DeviceEntry(driver, pool, name, d.get().attributes(), network);
      try {
        known = new Encoded(entry, MetadataCodec.entry(entry));
      } catch (IOException e) {
        entries.add(entry); // written in place by the codec, which reports what is wrong
        return;
      }
      if (encodedEntries.size() >= MAX_ENCODED_ENTRIES) {
        encodedEntries.clear();
      }
      encodedEntries.put(key, known);
    }
    entries.add(known.entry());
    encoded.put(known.entry(), known.bytes());
  }

  /** A device's entry and its bytes ({@link MetadataCodec#entry}). */
  private record Encoded(RequestMetadata.DeviceEntry entry, SerializableString bytes) {}

  /**
   * What a device's entry is made of: the device as the inventory holds it (a record, replaced when it
   * changes: compared by identity, which costs no walk of its attributes), its pool and network data.
   */
  private static final class EntryKey {
    private final Device device;
    private final String pool;
    private final Optional<NetworkData> network;
    private final int hash;

    EntryKey(Device device, String pool, Optional<NetworkData> network) {
      this.device = device;
      this.pool = pool;
      this.network = network;
      this.hash = System.identityHashCode(device) * 31 + pool.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof EntryKey k && k.device == device && k.pool.equals(pool) && k.network.equals(network);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private void writeFile(String uid, String part, String request, RequestMetadata content,
      Map<RequestMetadata.DeviceEntry, SerializableString> encoded) throws IOException {
    byte[] bytes = MetadataCodec.encode(content, encoded::get);
    Path file = layout.hostPath(uid, part, request);
    mkdirs(file.getParent());
    AtomicFiles.replace(file, bytes, AtomicFiles.WORLD_READABLE);
  }

  /** How many device entries are kept encoded (tests). */
  int encodedEntries() {
    return encodedEntries.size();
  }

  /**
   * Creates {@code dir} and its parents down from the state directory, one at a time, refusing a link or
   * a file where a directory goes (a link would send our writes elsewhere).
   */
  private void mkdirs(Path dir) throws IOException {
    Path stateDir = layout.root().getParent();
    Path at = stateDir;
    boolean created = false;
    for (Path segment : stateDir.relativize(dir)) {
      at = at.resolve(segment);
      // A segment already there (most of them, on every Prepare) is checked without a failed mkdir: JDK 17
      // answers that with an exception and its stack trace. Files.exists follows links, so the check that
      // refuses a link (or a file) is the lstat after it; a dangling link fails the mkdir below. Below a
      // directory made here nothing is there yet: no check (a race is the mkdir's exception below).
      if (!created && Files.exists(at)) {
        if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
          throw new IOException(at + " is in the way of the device metadata (a file or a link, not a directory)");
        }
        continue;
      }
      try {
        Files.createDirectory(at, DIRECTORY_MODE);
        created = true;
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

  /** The previous version's metadata spec: per request a device that bind-mounts the request's file read-only. */
  private void writeLegacySpec(String uid, String part, Set<String> requests) throws IOException {
    List<CdiDevice> devices = new ArrayList<>();
    for (String request : requests) {
      CdiContainerEdits.Mount mount = new CdiContainerEdits.Mount(layout.hostPath(uid, part, request).toString(),
          layout.containerPath(part, request), null, List.of("ro", "bind"));
      devices.add(new CdiDevice(uid + "-" + request, new CdiContainerEdits(List.of(), List.of(), List.of(), List.of(mount))));
    }
    CdiSpec draft = new CdiSpec(CdiVersion.EARLIEST.text(), driver + "/metadata", null, devices, null);
    CdiSpec spec = draft.withCdiVersion(CdiVersion.minimumRequired(draft).text());
    try {
      // Kind <driver>/metadata and names <uid>-<request> are this class's alone: no conflict scan.
      writer.writeUnique(cdiRoot, new CdiSpecFile(legacySpecFileName(uid), spec, SpecFormat.JSON));
    } catch (CdiValidationException e) {
      throw new IOException("the device metadata CDI spec is invalid: " + e.getMessage(), e);
    }
  }
}
