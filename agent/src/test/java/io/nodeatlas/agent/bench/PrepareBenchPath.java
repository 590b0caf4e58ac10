package io.nodeatlas.agent.bench;

import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.metadata.DeviceMetadataFiles;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The agent's own part of a Prepare, in this process and on one thread (bench/prepare.sh runs it after
 * the end-to-end figures): {@link ClaimPreparer} with the claim lookup answered from memory, state and
 * CDI directories on tmpfs, 32 claims of 8 devices prepared one after another and then unprepared, round
 * after round, as the N=32 rounds of PrepareBench leave the directories. Prints the CPU time of this
 * thread per Prepare and per Unprepare (less swayed by other load on the machine than wall time), the
 * bytes it allocates per Prepare and per Unprepare (independent of load: the garbage that sets how often
 * the agent's small serial heap collects, and so the p99 of Prepare), and the floor: two small atomic
 * file writes ({@link AtomicFiles#write}), the least a Prepare that records a CDI spec and a checkpoint
 * entry costs.
 *
 * <p>Runs three times: with the checkpoint written whole at every commit (v2.3, the default), with its
 * journal (v3.0, {@code Checkpoint.open(file, true)}), where a commit appends the claim's own line, and
 * with the journal, the device metadata files (KEP-5304) and the metrics as the agent's {@code run}
 * wires them.
 *
 * <p>Arguments: {@code [rounds, default 300]}. Run it with the agent's JVM options for its JIT.
 */
public final class PrepareBenchPath {

  private static final int CLAIMS = 32;
  private static final int DEVICES_PER_CLAIM = 8;

  private PrepareBenchPath() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    Path shm = Path.of("/dev/shm");
    for (int run = 0; run < 3; run++) {
      Path tmp = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "nodeatlas-path-bench")
          : Files.createTempDirectory("nodeatlas-path-bench");
      System.out.println(run == 0 ? "checkpoint v2.3, the whole file per commit:"
          : run == 1 ? "checkpoint v3.0, a journal line per commit:"
          : "checkpoint v3.0, device metadata files and metrics (as the agent runs):");
      measure(tmp, rounds, run > 0, run == 2);
    }
  }

  private static void measure(Path tmp, int rounds, boolean journal, boolean asAgent) throws Exception {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    com.sun.management.ThreadMXBean alloc = (com.sun.management.ThreadMXBean) cpu;
    try {
      DeviceInventory inventory = new DeviceInventory("node-a");
      inventory.replace(TestDevices.gpus(CLAIMS * DEVICES_PER_CLAIM));
      List<ClaimRef> claims = new ArrayList<>();
      for (int c = 0; c < CLAIMS; c++) {
        claims.add(new ClaimRef("bench", "claim-" + c, String.format("00000000-0000-0000-0000-%012x", 10 + c)));
      }
      ClaimSpecStore specs = new ClaimSpecStore(Files.createDirectories(tmp.resolve("cdi")));
      ClaimPreparer preparer = new ClaimPreparer("nodeatlas.io", inventory, claim -> {
        int c = Integer.parseInt(claim.name().substring("claim-".length()));
        List<AllocatedDevice> out = new ArrayList<>();
        for (int d = 0; d < DEVICES_PER_CLAIM; d++) {
          out.add(new AllocatedDevice("gpus", "nodeatlas.io", "node-a", "gpu-" + (c * DEVICES_PER_CLAIM + d), false, "",
              Map.of()));
        }
        return out;
      }, specs, Checkpoint.open(tmp.resolve("state/checkpoint.json"), journal),
          asAgent ? new AgentMetrics("bench") : ClaimPreparer.Listener.NONE);
      if (asAgent) {
        preparer.withMetadata(new DeviceMetadataFiles(tmp.resolve("state"), tmp.resolve("cdi"), specs.writer(), "nodeatlas.io",
            inventory, d -> java.util.Optional.empty(), true));
      }
      Path floorDir = Files.createDirectories(tmp.resolve("floor"));
      byte[] small = "{\"cdiVersion\":\"0.6.0\",\"kind\":\"nodeatlas.io/claim\",\"devices\":[]}".repeat(8)
          .getBytes(StandardCharsets.UTF_8);
      long[] totals = new long[3];
      long[] bytes = new long[3];
      for (int r = -rounds / 3; r < rounds; r++) {
        long a0 = alloc.getCurrentThreadAllocatedBytes();
        long t0 = cpu.getCurrentThreadCpuTime();
        for (ClaimRef c : claims) {
          ClaimResult result = preparer.prepare(List.of(c)).get(c.uid());
          if (result.failed() || result.devices().size() != DEVICES_PER_CLAIM) {
            throw new IllegalStateException("prepare failed: " + result.error());
          }
        }
        long t1 = cpu.getCurrentThreadCpuTime();
        long a1 = alloc.getCurrentThreadAllocatedBytes();
        for (ClaimRef c : claims) {
          String error = preparer.unprepare(List.of(c)).get(c.uid());
          if (!error.isEmpty()) {
            throw new IllegalStateException("unprepare failed: " + error);
          }
        }
        long t2 = cpu.getCurrentThreadCpuTime();
        long a2 = alloc.getCurrentThreadAllocatedBytes();
        for (int c = 0; c < CLAIMS; c++) {
          AtomicFiles.write(floorDir.resolve("spec-" + c + ".json"), small, AtomicFiles.WORLD_READABLE);
          AtomicFiles.write(floorDir.resolve("checkpoint-" + c + ".json"), small, AtomicFiles.OWNER_ONLY);
        }
        long t3 = cpu.getCurrentThreadCpuTime();
        long a3 = alloc.getCurrentThreadAllocatedBytes();
        if (r >= 0) {
          totals[0] += t1 - t0;
          totals[1] += t2 - t1;
          totals[2] += t3 - t2;
          bytes[0] += a1 - a0;
          bytes[1] += a2 - a1;
          bytes[2] += a3 - a2;
        }
      }
      double n = (double) rounds * CLAIMS;
      System.out.printf("in-process, one thread, %d claims of %d devices, %d rounds: CPU us per Prepare %.1f, per Unprepare"
          + " %.1f; floor (two atomic writes) %.1f; Prepare/floor %.1fx%n", CLAIMS, DEVICES_PER_CLAIM, rounds,
          totals[0] / n / 1e3, totals[1] / n / 1e3, totals[2] / n / 1e3, (double) totals[0] / totals[2]);
      // The measuring calls themselves allocate nothing worth counting (a few bytes per round, not per claim).
      System.out.printf("in-process, allocated bytes per Prepare %.0f, per Unprepare %.0f; floor (two atomic writes) %.0f;"
          + " Prepare/floor %.1fx%n", bytes[0] / n, bytes[1] / n, bytes[2] / n, (double) bytes[0] / bytes[2]);
    } finally {
      try (Stream<Path> files = Files.walk(tmp)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }
}
