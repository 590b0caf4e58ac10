package io.nodeatlas.agent.claims;

import io.nodeatlas.cdi.CdiSpecGenerator;
import io.nodeatlas.cdi.CdiSpecWriter;
import io.nodeatlas.cdi.CdiValidationException;
import io.nodeatlas.cdi.CdiValidator;
import io.nodeatlas.cdi.ClaimCdiSpecs;
import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The only place the agent touches the CDI library: per-claim transient specs
 * ({@code nodeatlas.io-claim_<uid>.json} in the CDI dir, devices named {@code <uid>-<device>} so two
 * claims never define the same CDI name; KEP-4381: Prepare answers CDI device ids) and the static
 * per-class specs of standalone mode.
 */
public final class ClaimSpecStore implements ClaimSpecs {

  private final Path cdiRoot;
  private final ClaimCdiSpecs claimSpecs = new ClaimCdiSpecs();
  /**
   * Claim specs are written without {@code fsync}: the checkpoint is the durable record of a prepared
   * claim, and {@link ClaimPreparer} re-creates a claim's spec from it when the kubelet prepares the
   * claim again after a reboot (KEP-4381), the only event that can lose an un-synced write.
   */
  private final CdiSpecWriter writer = CdiSpecWriter.withoutFsync();
  private final CdiValidator validator = new CdiValidator();

  public ClaimSpecStore(Path cdiRoot) {
    this.cdiRoot = cdiRoot;
  }

  /**
   * The writer of the claim specs, for the agent's other per-claim specs in the same directory (device
   * metadata): one writer knows its own files without reading them back, so sharing it spares each
   * Prepare the parse of the other writer's new files.
   */
  public CdiSpecWriter writer() {
    return writer;
  }

  @Override
  public Map<String, List<String>> write(ClaimRef claim, List<Device> devices) throws IOException {
    return write(claim, devices, List.of());
  }

  /** The claim's spec with its devices and {@code mounts} (each a device that bind-mounts one file read-only). */
  @Override
  public Map<String, List<String>> write(ClaimRef claim, List<Device> devices, List<ClaimMount> mounts) throws IOException {
    List<CdiDevice> extra = new java.util.ArrayList<>(mounts.size());
    for (ClaimMount m : mounts) {
      extra.add(new CdiDevice(m.name(), new CdiContainerEdits(List.of(), List.of(), List.of(),
          List.of(new CdiContainerEdits.Mount(m.hostPath(), m.containerPath(), null, List.of("ro", "bind"))))));
    }
    ClaimCdiSpecs.ClaimSpec spec = claimSpecs.forClaim(claim.uid(), devices, extra);
    Map<String, List<String>> ids = spec.cdiDeviceIds();
    if (!mounts.isEmpty()) {
      ids = new java.util.TreeMap<>(ids);
      for (ClaimMount m : mounts) {
        ids.put(m.name(), List.of(claimSpecs.kind() + "=" + m.name()));
      }
    }
    if (spec.file().isPresent()) {
      try {
        writer.write(cdiRoot, spec.file().get());
      } catch (CdiValidationException e) {
        throw new IOException("the CDI spec for claim " + claim + " is invalid: " + e.getMessage(), e);
      }
    }
    return ids;
  }

  /**
   * Re-creates the claim's spec when its file is missing (never through a link: a link at its place is
   * "not our file" and gets replaced by the atomic rename). The ids are the same as when it was first
   * written: each CDI device is named from the claim UID and the device name.
   */
  @Override
  public java.util.Optional<Map<String, List<String>>> ensure(ClaimRef claim, java.util.function.Supplier<List<Device>> devices)
      throws IOException {
    return ensure(claim, devices, List.of());
  }

  @Override
  public java.util.Optional<Map<String, List<String>>> ensure(ClaimRef claim, java.util.function.Supplier<List<Device>> devices,
      List<ClaimMount> mounts) throws IOException {
    if (java.nio.file.Files.isRegularFile(cdiRoot.resolve(claimSpecs.fileName(claim.uid())), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(write(claim, devices.get(), mounts));
  }

  @Override
  public java.util.Optional<Map<String, List<String>>> ensureValid(ClaimRef claim,
      java.util.function.Supplier<List<Device>> devices, java.util.Collection<String> recordedIds) throws IOException {
    return ensureValid(claim, devices, recordedIds, List.of());
  }

  @Override
  public java.util.Optional<Map<String, List<String>>> ensureValid(ClaimRef claim,
      java.util.function.Supplier<List<Device>> devices, java.util.Collection<String> recordedIds, List<ClaimMount> mounts)
      throws IOException {
    Path file = cdiRoot.resolve(claimSpecs.fileName(claim.uid()));
    if (java.nio.file.Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS) && definesAll(file, recordedIds)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(write(claim, devices.get(), mounts));
  }

  /** Whether {@code file} is a valid spec, as a runtime reads it, that defines every id of {@code ids}. */
  private boolean definesAll(Path file, java.util.Collection<String> ids) {
    CdiValidator.LoadedFile loaded = validator.load(file);
    if (loaded.spec() == null || !validator.validate(loaded.spec(), file.getFileName().toString()).isEmpty()) {
      return false;
    }
    java.util.Set<String> defined = new java.util.HashSet<>();
    loaded.spec().devices().forEach(d -> defined.add(loaded.spec().qualifiedName(d.name())));
    return defined.containsAll(ids);
  }

  /** UIDs of the claims that have a spec of ours in the CDI dir (by file name and content). */
  public List<String> claimSpecUids() throws IOException {
    if (!java.nio.file.Files.isDirectory(cdiRoot, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    String prefix = claimSpecs.fileName("x");
    prefix = prefix.substring(0, prefix.length() - "x.json".length());
    List<String> out = new java.util.ArrayList<>();
    for (String name : writer.staleFiles(cdiRoot, java.util.Set.of(), claimSpecs.ownership())) {
      if (name.startsWith(prefix) && name.endsWith(".json")) {
        out.add(name.substring(prefix.length(), name.length() - ".json".length()));
      }
    }
    return out;
  }

  /**
   * Removes the temporary files that a killed agent left while writing claim specs or the static specs
   * (never other writers' files). For start-up, before any Prepare or reconcile of this process runs.
   */
  public List<Path> removeStaleTemporaryFiles() throws IOException {
    List<Path> removed = new java.util.ArrayList<>(writer.removeStaleTemporaryFiles(cdiRoot, claimSpecs.ownership()));
    removed.addAll(writer.removeStaleTemporaryFiles(cdiRoot, CdiSpecGenerator.builder().build().ownership()));
    return removed;
  }

  @Override
  public void checkDirectory() throws IOException {
    if (java.nio.file.Files.isSymbolicLink(cdiRoot)) {
      throw new IOException("the CDI directory " + cdiRoot + " is a symbolic link (to " + java.nio.file.Files.readSymbolicLink(cdiRoot)
          + "), and nodeatlas does not follow links to the directories it writes; put the directory back");
    }
  }

  @Override
  public void remove(String claimUid) throws IOException {
    writer.remove(cdiRoot, claimSpecs.fileName(claimUid));
  }

  /**
   * Standalone mode: makes the CDI dir hold exactly the static per-class specs of {@code devices}
   * among the static files we own (claim specs are not touched). Returns the number of files changed.
   */
  public int reconcileStatic(List<Device> devices) throws IOException {
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    try {
      return (int) writer.reconcile(cdiRoot, generator.generate(devices).specs(), generator.ownership()).stream()
          .filter(c -> c.outcome() != CdiSpecWriter.Outcome.UNCHANGED).count();
    } catch (CdiValidationException e) {
      throw new IOException("the static CDI specs are invalid: " + e.getMessage(), e);
    }
  }
}
