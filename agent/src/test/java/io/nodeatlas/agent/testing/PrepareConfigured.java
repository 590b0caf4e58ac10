package io.nodeatlas.agent.testing;

import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookupException;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.ClaimWorkers;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.spi.DiscoverySource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The agent's Prepare and Unprepare for claims with an opaque configuration, for {@code .ci/e2e/podman-gpu.sh}:
 * the real {@link ClaimPreparer}, checkpoint, claim CDI specs and the installed families' claim-time work
 * ({@link DeviceRealiser}), on the devices of a saved {@code nodeatlas discover -o json} document.
 *
 * <pre>
 * PrepareConfigured prepare|unprepare REPORT STATE_DIR CDI_DIR [SOURCE.KEY=VALUE ...] NAME:DEVICE[:PARAMETERS_FILE] ...
 * </pre>
 * {@code SOURCE.KEY=VALUE} are source settings ({@code gpu.nvmlLibrary=...}); a claim's parameters file holds
 * the JSON of its {@code opaque.parameters} for driver {@code nodeatlas.io}. Prints one line per claim:
 * {@code NAME ok UID CDI_ID...} or {@code NAME error MESSAGE}; exit status 1 when any claim failed.
 */
public final class PrepareConfigured {

  private PrepareConfigured() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5 || !List.of("prepare", "unprepare").contains(args[0])) {
      System.err.println("usage: PrepareConfigured prepare|unprepare REPORT STATE_DIR CDI_DIR [SOURCE.KEY=VALUE ...] "
          + "NAME:DEVICE[:PARAMETERS_FILE] ...");
      System.exit(2);
    }
    NodeReport report = new NodeReportCodec().fromJson(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));
    DeviceInventory inventory = new DeviceInventory(ShareChurn.NODE);
    inventory.replace(report.devices(), report.topology());
    Path state = Path.of(args[2]);
    Map<String, String> options = new TreeMap<>();
    Map<String, List<AllocatedDevice>> allocations = new LinkedHashMap<>();
    List<ClaimRef> claims = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      if (!args[i].contains(":")) {
        String[] kv = args[i].split("=", 2);
        options.put(kv[0], kv[1]);
        continue;
      }
      String[] parts = args[i].split(":", 3);
      List<String> configs = parts.length == 3 ? List.of(Files.readString(Path.of(parts[2]))) : List.of();
      String uid = UUID.nameUUIDFromBytes(("claim/" + parts[0]).getBytes(StandardCharsets.UTF_8)).toString();
      allocations.put(uid, List.of(new AllocatedDevice("gpu", ShareChurn.DRIVER, ShareChurn.NODE, parts[1], false)
          .withConfigs(configs)));
      claims.add(new ClaimRef("e2e", parts[0], uid));
    }
    HostContext host = new HostContext(HostFs.of(Path.of("/")), new SourceOptions(options), Clock.systemUTC());
    ClassLoader loader = PrepareConfigured.class.getClassLoader();
    Map<String, DeviceRealiser> realisers = new TreeMap<>();
    for (DiscoverySource s : DiscoverySources.load(loader).all()) {
      s.deviceRealiser(host, state.resolve("families")).ifPresent(r -> realisers.put(s.name(), r));
    }
    Families families = Families.installed(loader, new SharePlacer.Settings(ClaimPreparer.DEFAULT_HOOK_PATH))
        .withRealisers(realisers);
    ClaimPreparer preparer = new ClaimPreparer(ShareChurn.DRIVER, inventory, claim -> {
      List<AllocatedDevice> a = allocations.get(claim.uid());
      if (a == null) {
        throw new ClaimLookupException("no such claim " + claim);
      }
      return a;
    }, new ClaimSpecStore(Path.of(args[3])), Checkpoint.open(state.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE,
        families, ClaimWorkers.pooled(1));
    boolean failed = false;
    for (ClaimRef c : claims) {
      if (args[0].equals("unprepare")) {
        String error = preparer.unprepare(List.of(c)).get(c.uid());
        failed |= !error.isEmpty();
        System.out.println(c.name() + (error.isEmpty() ? " ok " + c.uid() : " error " + error));
        continue;
      }
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
