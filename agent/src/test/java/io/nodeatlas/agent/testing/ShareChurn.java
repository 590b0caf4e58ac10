package io.nodeatlas.agent.testing;

import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookup;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A process that prepares and unprepares shares of the {@link ShareInvariants} node from 16 threads as
 * fast as it can, until it is killed with SIGKILL ({@code ShareCrashTest}). Claim {@code c<k>} always
 * has the same allocation ({@link #allocation}), as the API server would keep it.
 */
public final class ShareChurn {

  public static final int CLAIMS = 200;
  public static final String DRIVER = "nodeatlas.io";
  public static final String NODE = "node-a";

  private ShareChurn() {}

  public static ClaimRef ref(int k) {
    return new ClaimRef("churn", "c" + k, String.format("00000000-0000-4000-a000-%012d", k));
  }

  /** A CPU share of 1-3 CPUs and a hugepage share of 1-4 pages, on nodes that depend on k. */
  public static List<AllocatedDevice> allocation(ClaimRef claim) {
    int k = Integer.parseInt(claim.name().substring(1));
    return List.of(
        new AllocatedDevice("cpus", DRIVER, NODE, "cpu-numa" + (k % 2), false, String.format("00000000-0000-4000-b000-%012d", k),
            Map.of("nodeatlas.io/cpu", Integer.toString(1 + k % 3))),
        new AllocatedDevice("pages", DRIVER, NODE, "hugepages-2mi-numa" + ((k / 2) % 2), false,
            String.format("00000000-0000-4000-c000-%012d", k), Map.of("nodeatlas.io/memory", (2 * (1 + k % 4)) + "Mi")));
  }

  public static ClaimPreparer preparer(Path stateDir, Path cdiDir) throws Exception {
    DeviceInventory inventory = new DeviceInventory(NODE);
    inventory.replace(ShareInvariants.devices(), ShareFixtures.topology());
    ClaimLookup lookup = ShareChurn::allocation;
    return new ClaimPreparer(DRIVER, inventory, lookup, new ClaimSpecStore(cdiDir),
        Checkpoint.open(stateDir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE, "/usr/local/libexec/nodeatlas/cpuset-hook");
  }

  public static void main(String[] args) throws Exception {
    ClaimPreparer preparer = preparer(Path.of(args[0]), Path.of(args[1]));
    ExecutorService pool = Executors.newFixedThreadPool(16);
    // Before any worker runs: a fast Prepare would otherwise print "prepared" first.
    System.out.println("ready");
    System.out.flush();
    for (int t = 0; t < 16; t++) {
      long seed = Long.parseLong(args[2]) * 31 + t;
      pool.submit(() -> {
        Random random = new Random(seed);
        while (true) {
          ClaimRef claim = ref(random.nextInt(CLAIMS));
          if (random.nextInt(3) == 0) {
            preparer.unprepare(List.of(claim));
          } else if (!preparer.prepare(List.of(claim)).get(claim.uid()).failed()) {
            // One line per recorded Prepare: the test kills after a random number of them, an
            // event it can wait for on a loaded machine, where a fixed delay might see none.
            synchronized (System.out) {
              System.out.println("prepared");
              System.out.flush();
            }
          }
        }
      });
    }
    pool.awaitTermination(1, java.util.concurrent.TimeUnit.DAYS);
  }
}
