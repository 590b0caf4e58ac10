package io.nodeatlas.agent.testing;

import io.nodeatlas.agent.claims.AllocatedClaim;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.CallBudget;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookup;
import io.nodeatlas.agent.claims.ClaimLookupException;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.metadata.DeviceMetadataFiles;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.share.NetworkData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The agent's Prepare and Unprepare path with device metadata (KEP-5304), for {@code .ci/e2e/podman-metadata.sh}:
 * the real {@link ClaimPreparer}, checkpoint, claim specs and {@link DeviceMetadataFiles}, for two claims
 * as the scheduler and the ResourceClaim controller would have made them: {@code direct} (named by the pod;
 * request {@code gpus} on {@code gpu-0}, request {@code net} on {@code nic-eth1}, whose family states the
 * interface {@code eth1}) and {@code pod-a-accel-x7k2q} (made from a template, the pod's name for it
 * {@code accel}; request {@code gpus}, subrequest {@code big}, on {@code gpu-1}). The devices carry only env
 * edits, so that any host can run them.
 *
 * <pre>
 * PrepareMetadata prepare STATE_DIR CDI_DIR       one line per claim: NAME ok UID CDI_ID... (or NAME error MESSAGE)
 * PrepareMetadata unprepare STATE_DIR CDI_DIR NAME   NAME ok, or NAME error MESSAGE
 * </pre>
 * The exit status is 1 when any claim failed.
 */
public final class PrepareMetadata {

  private PrepareMetadata() {}

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";

  static Device gpu(int index) {
    return Device.builder("gpu-" + index, "gpu")
        .attribute(Device.TYPE, "gpu")
        .attribute(Names.ours("uuid"), "GPU-" + String.format("%08d", index) + "-aaaa-bbbb-cccc")
        .attribute(Names.ours("driverVersion"), AttributeValue.version("580.65.6"))
        .attribute(Names.NUMA_NODE, index)
        .attribute(Names.PCI_BUS_ID, String.format("0000:%02x:00.0", 0x10 + index))
        .containerEdits(ContainerEdits.builder().env("E2E_GPU_" + index + "=1").build())
        .build();
  }

  static Device nic() {
    return Device.builder("nic-eth1", "nic").attribute(Device.TYPE, "nic").attribute(Names.ours("interface"), "eth1")
        .containerEdits(ContainerEdits.builder().env("E2E_NIC=eth1").build()).build();
  }

  static String uid(String name) {
    return UUID.nameUUIDFromBytes(("metadata-claim/" + name).getBytes(StandardCharsets.UTF_8)).toString();
  }

  static final Map<String, AllocatedClaim> CLAIMS = Map.of(
      "direct", new AllocatedClaim(List.of(new AllocatedDevice("gpus", DRIVER, NODE, "gpu-0", false),
          new AllocatedDevice("net", DRIVER, NODE, "nic-eth1", false)), ""),
      "pod-a-accel-x7k2q", new AllocatedClaim(List.of(new AllocatedDevice("gpus/big", DRIVER, NODE, "gpu-1", false)), "accel"));

  public static void main(String[] args) throws Exception {
    if (args.length < 3 || !(args[0].equals("prepare") && args.length == 3 || args[0].equals("unprepare") && args.length == 4)) {
      System.err.println("usage: PrepareMetadata prepare STATE_DIR CDI_DIR | unprepare STATE_DIR CDI_DIR NAME");
      System.exit(2);
    }
    Path state = Path.of(args[1]);
    Path cdi = Path.of(args[2]);
    DeviceInventory inventory = new DeviceInventory(NODE);
    inventory.replace(List.of(gpu(0), gpu(1), nic()));
    ClaimLookup lookup = new ClaimLookup() {
      @Override
      public List<AllocatedDevice> allocation(ClaimRef claim) throws ClaimLookupException {
        return allocatedClaim(claim, CallBudget.after(ClaimPreparer.DEFAULT_CALL_BUDGET)).results();
      }

      @Override
      public AllocatedClaim allocatedClaim(ClaimRef claim, CallBudget budget) throws ClaimLookupException {
        AllocatedClaim a = CLAIMS.get(claim.name());
        if (a == null) {
          throw new ClaimLookupException("no such claim " + claim);
        }
        return a;
      }
    };
    ClaimPreparer preparer = new ClaimPreparer(DRIVER, inventory, lookup, new ClaimSpecStore(cdi),
        Checkpoint.open(state.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE);
    preparer.withMetadata(new DeviceMetadataFiles(state, cdi, DRIVER, inventory,
        d -> d.name().equals("nic-eth1") ? Optional.of(new NetworkData("eth1", "0c:42:a1:00:00:01")) : Optional.empty(), true));
    boolean failed = false;
    if (args[0].equals("unprepare")) {
      ClaimRef c = new ClaimRef("e2e", args[3], uid(args[3]));
      String err = preparer.unprepare(List.of(c)).get(c.uid());
      failed = !err.isEmpty();
      System.out.println(c.name() + (failed ? " error " + err : " ok"));
    } else {
      for (String name : List.of("direct", "pod-a-accel-x7k2q")) {
        ClaimRef c = new ClaimRef("e2e", name, uid(name));
        ClaimResult r = preparer.prepare(List.of(c)).get(c.uid());
        if (r.failed()) {
          failed = true;
          System.out.println(name + " error " + r.error());
        } else {
          List<String> ids = r.devices().stream().map(PreparedDevice::cdiDeviceIds).flatMap(List::stream).toList();
          System.out.println(name + " ok " + c.uid() + " " + String.join(" ", ids));
        }
      }
    }
    System.exit(failed ? 1 : 0);
  }
}
