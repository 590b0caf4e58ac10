package io.nodeatlas.agent.doctor;

import io.nodeatlas.agent.claims.CheckpointCodec;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import io.nodeatlas.agent.claims.PreparedClaim;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.metadata.DeviceMetadataFiles;
import io.nodeatlas.cdi.ClaimCdiSpecs;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.HostFileFacts;
import io.nodeatlas.discovery.doctor.NodeLayout;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The agent's own state on the node: the state directory's owner and mode, the checkpoint readable,
 * and the checkpoint and the claim specs in agreement (no prepared claim without its spec, no spec
 * without its claim, no claim specs without a checkpoint), including after a reboot, when a tmpfs CDI
 * directory has lost every spec and the checkpoint still lists the claims of the earlier boot.
 */
public final class AgentStateCheck implements DoctorCheck {

  private final ClaimCdiSpecs claimSpecs = new ClaimCdiSpecs();

  @Override
  public String name() {
    return "agent.state";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    HostFs fs = context.host().fs();
    NodeLayout layout = context.layout();
    List<Finding> out = new ArrayList<>();
    Path stateDir = fs.fromHostPath(layout.stateDir());
    SortedSet<String> specUids = claimSpecUids(fs, layout.cdiDir());
    if (!fs.isDirectory(stateDir)) {
      if (!specUids.isEmpty()) {
        out.add(Finding.fail("agent.checkpoint", "no state directory " + layout.stateDir() + ", but " + Finding.count(specUids.size(), "claim spec")
            + " of ours lie in " + layout.cdiDir() + ": the agent refuses every Prepare until it knows them",
            "restart the agent with --recover (NODEATLAS_RECOVER=true): it records the claims the API server still allocates here"));
      } else {
        out.add(Finding.ok("agent.state", "no state directory " + layout.stateDir() + " yet: no claim was prepared here"));
      }
      return out;
    }
    out.add(directoryFinding(fs, layout.stateDir()));
    Path file = stateDir.resolve("checkpoint.json");
    if (Files.isSymbolicLink(file)) {
      out.add(Finding.fail("agent.checkpoint", layout.stateDir() + "/checkpoint.json is a symbolic link; the agent refuses it",
          "replace the link with the file it points to, or move it aside and restart with --recover"));
      return out;
    }
    Optional<byte[]> bytes;
    try {
      bytes = fs.readBytes(file);
    } catch (RuntimeException e) {
      out.add(Finding.fail("agent.checkpoint", "cannot read the checkpoint: " + Excerpt.scrub(String.valueOf(e.getMessage())),
          "the agent cannot start with it either: check the file's permissions"));
      return out;
    }
    if (bytes.isEmpty()) {
      if (!specUids.isEmpty()) {
        out.add(Finding.fail("agent.checkpoint", "no checkpoint in " + layout.stateDir() + ", but " + Finding.count(specUids.size(), "claim spec")
            + " of ours lie in " + layout.cdiDir() + ": the agent refuses every Prepare until it knows them",
            "restart the agent with --recover (NODEATLAS_RECOVER=true)"));
      } else {
        out.add(Finding.ok("agent.checkpoint", "no checkpoint yet: no claim is prepared"));
      }
      return out;
    }
    CheckpointCodec.Content content;
    try {
      CheckpointCodec codec = new CheckpointCodec();
      content = codec.decode(file, bytes.get());
      // Format v3.0: the changes since the file was written are in its journal, beside it.
      Optional<Path> journal = codec.journalFile(file, content);
      content = codec.replay(file, content, journal.isEmpty() ? Optional.empty() : fs.readBytes(journal.get())).content();
    } catch (CorruptCheckpointException | RuntimeException e) {
      out.add(Finding.fail("agent.checkpoint", "the checkpoint cannot be read: " + Excerpt.scrub(String.valueOf(e.getMessage())),
          "the agent stops at start with it. " + CorruptCheckpointException.ROLLED_BACK
              + "; otherwise move it aside and restart the agent with --recover"));
      return out;
    }
    compare(fs, layout, content, specUids, out);
    return out;
  }

  /** The checkpoint's claims against the claim specs in the CDI directory and the boot they were recorded in. */
  private void compare(HostFs fs, NodeLayout layout, CheckpointCodec.Content content, SortedSet<String> specUids, List<Finding> out) {
    String currentBoot = fs.readValue(fs.proc("sys/kernel/random/boot_id")).orElse("");
    String recordedBoot = content.boot().id();
    boolean earlierBoot = !recordedBoot.isEmpty() && !currentBoot.isEmpty() && !recordedBoot.equals(currentBoot);
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, CheckpointCodec.Entry> e : content.claims().entrySet()) {
      if (needsSpec(e.getValue().claim()) && !specUids.contains(e.getKey())) {
        missing.add(e.getValue().claim().claim().namespace() + "/" + e.getValue().claim().claim().name() + " (" + e.getKey() + ")");
      }
    }
    SortedSet<String> stale = new TreeSet<>(specUids);
    stale.removeAll(content.claims().keySet());
    int claims = content.claims().size();
    if (earlierBoot && claims > 0) {
      boolean tmpfs = MountTable.read(fs).fileSystemOf(layout.cdiDir()).map("tmpfs"::equals).orElse(false);
      out.add(Finding.warn("agent.reboot", "the checkpoint is from an earlier boot (" + Excerpt.of(recordedBoot) + ") and lists "
          + Finding.count(claims, "claim") + (tmpfs ? "; " + layout.cdiDir() + " is tmpfs, so " + missing.size() + " of their specs are gone" : ""),
          "the kubelet prepares them again when their pods restart and the agent rewrites the specs then; if pods stay in "
              + "ContainerCreating, check that the agent runs and is registered (see kubelet below)"));
    } else if (!missing.isEmpty()) {
      out.add(Finding.fail("agent.specs", Finding.count(missing.size(), "prepared claim") + " without a CDI spec in " + layout.cdiDir() + ": "
          + String.join(", ", missing.subList(0, Math.min(5, missing.size()))) + (missing.size() > 5 ? ", ..." : "")
          + "; their containers would get no devices",
          "the agent writes a missing spec again at the claim's next Prepare: delete the pod, or restart the agent"));
    }
    if (!stale.isEmpty()) {
      out.add(Finding.warn("agent.specs", Finding.count(stale.size(), "claim spec") + " in " + layout.cdiDir() + " belonging to no prepared claim: "
          + String.join(", ", new ArrayList<>(stale).subList(0, Math.min(5, stale.size()))),
          "the agent removes them when it unprepares or resyncs; or delete " + layout.cdiDir() + "/"
              + claimSpecs.fileName(stale.first())));
    }
    rollback(content, out);
    if (out.stream().noneMatch(f -> f.check().startsWith("agent.specs") || f.check().equals("agent.reboot"))) {
      out.add(Finding.ok("agent.checkpoint", "checkpoint " + content.version() + ": " + Finding.count(claims, "prepared claim") + ", "
          + "each with its spec; boot " + (recordedBoot.isEmpty() ? "not recorded" : "is this one")));
    }
  }

  /**
   * Claims an older release cannot carry on: a record of a device made real at Prepare (a placement on a device
   * held whole), which releases from before such records refuse as corrupt ("placement without shareId"), and
   * device metadata mounted through the claim's own spec, which releases from before one spec per claim write
   * again after a reboot without those mounts. A rollback to one must wait until these claims are unprepared.
   */
  private static void rollback(CheckpointCodec.Content content, List<Finding> out) {
    List<String> made = new ArrayList<>();
    List<String> metadata = new ArrayList<>();
    for (CheckpointCodec.Entry e : content.claims().values()) {
      PreparedClaim c = e.claim();
      String name = c.claim().namespace() + "/" + c.claim().name() + " (" + c.claim().uid() + ")";
      if (c.devices().stream().anyMatch(d -> d.shareId().isEmpty() && !d.placementOrNone().empty())) {
        made.add(name);
      }
      String mount = "=" + c.claim().uid() + DeviceMetadataFiles.MOUNT_INFIX;
      if (c.devices().stream().anyMatch(d -> d.cdiDeviceIds().stream().anyMatch(id -> id.contains(mount)))) {
        metadata.add(name);
      }
    }
    List<String> saw = new ArrayList<>();
    if (!made.isEmpty()) {
      saw.add(claims(made) + " devices made at Prepare: a nodeatlas release from before such records refuses this "
          + "checkpoint as corrupt (\"placement without shareId\")");
    }
    if (!metadata.isEmpty()) {
      saw.add(claims(metadata) + " device metadata in their own CDI spec: a release from before one spec per claim "
          + "writes their spec again after a reboot without the metadata mounts, and containers started then fail on "
          + "the missing CDI device");
    }
    if (!saw.isEmpty()) {
      out.add(Finding.ok("agent.rollback", String.join("; ", saw) + "; before rolling back to such a release, delete "
          + "the pods that use these claims and wait until this line is gone (docs/agent.md, \"Rolling back\")"));
    }
  }

  private static String claims(List<String> names) {
    return Finding.count(names.size(), "prepared claim") + " (" + String.join(", ", names.subList(0, Math.min(5, names.size())))
        + (names.size() > 5 ? ", ..." : "") + (names.size() == 1 ? ") holds" : ") hold");
  }

  /** Whether a claim's devices were given a claim spec (CDI ids of our {@code claim} class). */
  private static boolean needsSpec(PreparedClaim claim) {
    for (PreparedDevice d : claim.devices()) {
      for (String id : d.cdiDeviceIds()) {
        if (id.contains("/" + ClaimCdiSpecs.DEFAULT_CLASS + "=")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The claim UIDs of our claim spec files in the CDI directory. */
  private SortedSet<String> claimSpecUids(HostFs fs, String cdiDir) {
    SortedSet<String> uids = new TreeSet<>();
    String prefix = claimSpecs.ownership().fileNamePrefix();
    for (String name : fs.listNames(fs.fromHostPath(cdiDir))) {
      if (name.startsWith(prefix) && (name.endsWith(".json") || name.endsWith(".yaml"))) {
        uids.add(name.substring(prefix.length(), name.lastIndexOf('.')));
      }
    }
    return uids;
  }

  private static Finding directoryFinding(HostFs fs, String hostPath) {
    Optional<HostFileFacts> facts = HostFileFacts.of(fs, hostPath);
    if (facts.isEmpty()) {
      return Finding.warn("agent.state", "cannot read the owner and mode of " + hostPath, "run doctor as root");
    }
    HostFileFacts f = facts.get();
    if (f.writableByOthers()) {
      return Finding.fail("agent.state", hostPath + String.format(" is writable by %s (mode %04o): whoever can write "
          + "there could forge the checkpoint", (f.permissions() & 002) != 0 ? "everyone" : "its group", f.permissions()),
          "chmod 0700 " + hostPath);
    }
    if (!f.ownedByTrusted(fs)) {
      return Finding.warn("agent.state", hostPath + " belongs to uid " + f.uid() + ", not root", "chown root:root " + hostPath);
    }
    return Finding.ok("agent.state", hostPath + String.format(" is root's, mode %04o", f.permissions()));
  }
}
