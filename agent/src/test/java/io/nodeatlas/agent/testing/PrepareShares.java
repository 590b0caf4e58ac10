package io.nodeatlas.agent.testing;

import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookupException;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The agent's Prepare path for {@code .ci/e2e/podman-shares.sh}: the real {@link ClaimPreparer},
 * checkpoint and claim CDI specs, for claims the script describes as the scheduler would have allocated
 * them (each {@code DEVICE=AMOUNT} a share with its own shareID and consumedCapacity), on the devices and
 * topology of a saved {@code nodeatlas discover -o json} document of this host.
 *
 * <pre>
 * PrepareShares REPORT STATE_DIR CDI_DIR HOOK_PATH NAME:DEVICE=AMOUNT[,DEVICE=AMOUNT...] ...
 * </pre>
 * Prints one line per claim: {@code NAME ok UID CDI_ID...} or {@code NAME error MESSAGE}; exit status 1
 * when any claim failed.
 */
public final class PrepareShares {

  private PrepareShares() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: PrepareShares REPORT STATE_DIR CDI_DIR HOOK_PATH NAME:DEVICE=AMOUNT[,...] ...");
      System.exit(2);
    }
    NodeReport report = new NodeReportCodec().fromJson(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
    DeviceInventory inventory = new DeviceInventory(ShareChurn.NODE);
    inventory.replace(report.devices(), report.topology());
    Map<String, List<AllocatedDevice>> allocations = new LinkedHashMap<>();
    List<ClaimRef> claims = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      String[] nameAndShares = args[i].split(":", 2);
      List<AllocatedDevice> results = new ArrayList<>();
      for (String share : nameAndShares[1].split(",")) {
        String[] deviceAndAmount = share.split("=", 2);
        Device d = inventory.device(deviceAndAmount[0]).orElseThrow(
            () -> new IllegalArgumentException("this host has no device " + deviceAndAmount[0]));
        String capacity = d.capacity().containsKey(Names.ours("cpu")) ? Names.ours("cpu") : Names.ours("memory");
        String shareId = UUID.nameUUIDFromBytes((nameAndShares[0] + "/" + d.name()).getBytes(StandardCharsets.UTF_8)).toString();
        results.add(new AllocatedDevice(d.type().orElse("share"), ShareChurn.DRIVER, ShareChurn.NODE, d.name(), false, shareId,
            Map.of(capacity, deviceAndAmount[1])));
      }
      String uid = UUID.nameUUIDFromBytes(("claim/" + nameAndShares[0]).getBytes(StandardCharsets.UTF_8)).toString();
      ClaimRef ref = new ClaimRef("e2e", nameAndShares[0], uid);
      allocations.put(uid, results);
      claims.add(ref);
    }
    ClaimPreparer preparer = new ClaimPreparer(ShareChurn.DRIVER, inventory, claim -> {
      List<AllocatedDevice> a = allocations.get(claim.uid());
      if (a == null) {
        throw new ClaimLookupException("no such claim " + claim);
      }
      return a;
    }, new ClaimSpecStore(Path.of(args[2])), Checkpoint.open(Path.of(args[1]).resolve("checkpoint.json")),
        ClaimPreparer.Listener.NONE, args[3]);
    boolean failed = false;
    for (ClaimRef c : claims) {
      ClaimResult r = preparer.prepare(List.of(c)).get(c.uid());
      if (r.failed()) {
        failed = true;
        System.out.println(c.name() + " error " + r.error());
      } else {
        List<String> ids = r.devices().stream().map(PreparedDevice::cdiDeviceIds).flatMap(List::stream).toList();
        System.out.println(c.name() + " ok " + c.uid() + " " + String.join(" ", ids));
      }
    }
    System.exit(failed ? 1 : 0);
  }
}
