package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.AgentMain;
import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.FakeKubelet;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 35 item 1: a real agent process whose state directory fails under it. As root the state
 * directory is a 256 KiB tmpfs in a mount namespace of the test's own, made full (ENOSPC) and then
 * read-only (EROFS); as another user it is made unwritable with chmod (EACCES). A Prepare whose
 * checkpoint commit failed is answered failed, and so is its retry while the disk still fails; no
 * claim answered failed is written by a later commit; and after {@code kill -9} and a restart the
 * checkpoint, the CDI specs and the answers the kubelet got agree, and the device of a failed claim is
 * free for the next one.
 *
 * <p>With the checkpoint's journal (format v3.0) a commit appends to a file the agent holds open, which
 * neither a full tmpfs (the append may fit in the page the file already has), a read-only bind (the
 * open file keeps its writable mount) nor a chmod reaches: there every fault also fails the agent's
 * writes to its journal with the fault's error, injected by {@code strace -P <journal> -e inject}.
 */
class FailedCommitTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  /** How the state directory is made to fail, and healed. */
  private interface Fault {
    String name();

    void fail() throws Exception;

    void heal() throws Exception;
  }

  @ParameterizedTest(name = "journal={0}")
  @ValueSource(booleans = {false, true})
  void aFailedCommitStaysFailedAndKillNineLeavesCheckpointAndSpecsInAgreement(boolean journal, @TempDir Path work)
      throws Exception {
    if (journal) {
      Process probe = new ProcessBuilder("strace", "-V").redirectErrorStream(true).start();
      String why = new String(probe.getInputStream().readAllBytes());
      org.junit.jupiter.api.Assumptions.assumeTrue(probe.waitFor() == 0,
          "with a journal this test fails the agent's writes to its open journal with strace: " + why);
    }
    Path state = work.resolve("state");
    Path cdi = work.resolve("cdi");
    Files.createDirectories(state);
    Files.createDirectories(cdi);
    Process holder = null;
    try (ClaimApiServer api = new ClaimApiServer()) {
      List<String> prefix = List.of();
      Path stateSeen = state;
      List<Fault> faults = new ArrayList<>();
      if (ROOT) {
        // Root without CAP_SYS_ADMIN (an unprivileged container) can make no disk fail: said, not passed.
        Process probe = new ProcessBuilder("unshare", "-m", "--propagation", "private", "true").redirectErrorStream(true).start();
        String why = new String(probe.getInputStream().readAllBytes());
        org.junit.jupiter.api.Assumptions.assumeTrue(probe.waitFor() == 0,
            "as root this test needs a mount namespace of its own (unshare -m): " + why);
        // A mount namespace that outlives the agent (so a restart finds the same tmpfs): a sleeping holder.
        holder = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sleep", "600").start();
        String pid = Long.toString(holder.pid());
        awaitNamespace(holder);
        run("nsenter", "-t", pid, "-m", "mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", state.toString());
        prefix = List.of("nsenter", "-t", pid, "-m", "--");
        stateSeen = Path.of("/proc", pid, "root").resolve(state.toString().substring(1));
        Path filler = stateSeen.resolve("filler");
        faults.add(new Fault() {
          public String name() {
            return "ENOSPC";
          }

          public void fail() throws IOException {
            try (OutputStream out = Files.newOutputStream(filler)) {
              byte[] block = new byte[4096];
              while (true) {
                out.write(block);
              }
            } catch (IOException full) {
              // The tmpfs is full.
            }
          }

          public void heal() throws IOException {
            Files.delete(filler);
          }
        });
        faults.add(new Fault() {
          public String name() {
            return "EROFS";
          }

          public void fail() throws Exception {
            // A read-only bind on top (the agent's open lock file keeps the tmpfs itself from a remount).
            run("nsenter", "-t", pid, "-m", "mount", "--bind", "-o", "ro", state.toString(), state.toString());
          }

          public void heal() throws Exception {
            run("nsenter", "-t", pid, "-m", "umount", state.toString());
          }
        });
      } else {
        faults.add(new Fault() {
          public String name() {
            return "EACCES";
          }

          public void fail() throws IOException {
            Files.setPosixFilePermissions(state, java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));
          }

          public void heal() throws IOException {
            Files.setPosixFilePermissions(state, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
          }
        });
      }
      Path kubeconfig = api.kubeconfig(work.resolve("kubeconfig"));
      Set<String> answeredOk = new TreeSet<>();
      int round = 0;
      for (Fault fault : faults) {
        round++;
        String a = "a" + round;
        String x = "x" + round;
        String z = "z" + round;
        String w = "w" + round;
        String y = "y" + round;
        // Four GPUs per round: a, x (then y), z, w.
        int base = 4 * (round - 1);
        api.claim(a, new ClaimApiServer.Answer("uid-" + a, List.of("gpu-" + base), 0));
        api.claim(x, new ClaimApiServer.Answer("uid-" + x, List.of("gpu-" + (base + 1)), 0));
        api.claim(z, new ClaimApiServer.Answer("uid-" + z, List.of("gpu-" + (base + 2)), 0));
        api.claim(w, new ClaimApiServer.Answer("uid-" + w, List.of("gpu-" + (base + 3)), 0));
        api.claim(y, new ClaimApiServer.Answer("uid-" + y, List.of("gpu-" + (base + 1)), 0));
        Path log = work.resolve("agent-" + fault.name() + ".log");
        Process agent = start(prefix, kubeconfig, work, cdi, state, log, journal);
        try (FakeKubelet kubelet = kubelet(agent, work, log)) {
          expectOk(kubelet, a, answeredOk);

          fault.fail();
          JournalFault appends = journal ? JournalFault.inject(agent, state, stateSeen, fault.name(), work) : null;
          try {
            for (String failing : List.of(x, x, z)) {
              // The retry of x is asked as the kubelet asks it: the same claim again, answered failed again.
              assertThat(error(kubelet, failing)).as("%s: %s while the disk fails", fault.name(), failing)
                  .contains("cannot record the claim in the checkpoint");
            }
          } finally {
            if (appends != null) {
              appends.close();
            }
          }
          fault.heal();

          expectOk(kubelet, w, answeredOk);
          assertAgreement(fault.name() + " before kill -9", stateSeen, cdi, answeredOk);
        } finally {
          agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        assertAgreement(fault.name() + " after kill -9", stateSeen, cdi, answeredOk);

        Process again = start(prefix, kubeconfig, work, cdi, state, log.resolveSibling("agent-" + fault.name() + "-2.log"),
            journal);
        try (FakeKubelet kubelet = kubelet(again, work, log.resolveSibling("agent-" + fault.name() + "-2.log"))) {
          // x's device was never recorded: the next claim given it gets it.
          expectOk(kubelet, y, answeredOk);
          expectOk(kubelet, a, answeredOk);
          assertThat(error(kubelet, x)).as("x's device is y's now").contains("already prepared for claim default/" + y + " ");
          assertAgreement(fault.name() + " after restart", stateSeen, cdi, answeredOk);
        } finally {
          again.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        assertAgreement(fault.name() + " after the second kill -9", stateSeen, cdi, answeredOk);
      }
    } finally {
      if (holder != null) {
        holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The agent's writes to its journal failing with {@code errno} while this lives: {@code strace} attached to
   * it, injecting the error into every write syscall on the journal files (and only those: {@code -P}).
   */
  private static final class JournalFault implements AutoCloseable {
    private final Process strace;

    private JournalFault(Process strace) {
      this.strace = strace;
    }

    static JournalFault inject(Process agent, Path state, Path stateSeen, String errno, Path work) throws Exception {
      List<String> cmd = new ArrayList<>(List.of("strace", "-f", "-p", Long.toString(agent.pid()),
          "-o", work.resolve("strace-" + errno + ".log").toString()));
      try (Stream<Path> files = Files.list(stateSeen)) {
        // The agent sees the journal under the state directory's path (in its own mount namespace, as root).
        files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("checkpoint.json.journal-")).sorted()
            .forEach(n -> cmd.addAll(List.of("-P", state.resolve(n).toString())));
      }
      assertThat(cmd).as("a journal beside the checkpoint").contains("-P");
      cmd.addAll(List.of("-e", "trace=write,writev,pwrite64,pwritev",
          "-e", "inject=write,writev,pwrite64,pwritev:error=" + errno));
      Path err = work.resolve("strace-" + errno + ".err");
      Process strace = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(err.toFile()).start();
      JournalFault fault = new JournalFault(strace);
      // Attached once it says so (every thread of the agent, -f): only then may the test send a Prepare.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.readString(err).contains(" attached")) {
        if (!strace.isAlive() || System.nanoTime() > deadline) {
          fault.close();
          org.junit.jupiter.api.Assumptions.assumeTrue(false,
              "strace could not attach to the agent to fail its journal writes: " + Files.readString(err));
        }
        try {
          strace.onExit().get(20, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException stillRunning) {
          // not yet
        }
      }
      return fault;
    }

    /** Detaches (SIGTERM): the agent's writes reach the journal again. */
    @Override
    public void close() throws Exception {
      strace.destroy();
      if (!strace.waitFor(30, TimeUnit.SECONDS)) {
        strace.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  static void expectOk(FakeKubelet kubelet, String name, Set<String> answeredOk) {
    NodePrepareResourcesResponse r = kubelet.prepare(claim("default", name, "uid-" + name));
    assertThat(r.getClaimsOrThrow("uid-" + name).getError()).as("prepare %s", name).isEmpty();
    answeredOk.add("uid-" + name);
  }

  static String error(FakeKubelet kubelet, String name) {
    return kubelet.prepare(claim("default", name, "uid-" + name)).getClaimsOrThrow("uid-" + name).getError();
  }

  /** The claims the checkpoint holds, the claims with a CDI spec and the claims answered OK are the same. */
  static void assertAgreement(String when, Path state, Path cdi, Set<String> answeredOk) throws Exception {
    JsonNode doc = JSON.readTree(Checkpoint.document(state.resolve("checkpoint.json")));
    Set<String> recorded = new TreeSet<>();
    doc.get("claims").fieldNames().forEachRemaining(recorded::add);
    Set<String> specs = new TreeSet<>();
    try (Stream<Path> files = Files.list(cdi)) {
      files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("nodeatlas.io-claim_") && n.endsWith(".json"))
          .forEach(n -> specs.add(n.substring("nodeatlas.io-claim_".length(), n.length() - ".json".length())));
    }
    assertThat(recorded).as("%s: the checkpoint's claims are those answered OK", when).isEqualTo(answeredOk);
    assertThat(specs).as("%s: the CDI specs are those of the checkpoint", when).isEqualTo(recorded);
  }

  static Process start(List<String> prefix, Path kubeconfig, Path work, Path cdi, Path state, Path log)
      throws IOException {
    return start(prefix, kubeconfig, work, cdi, state, log, AgentSettings.DEFAULT_CHECKPOINT_JOURNAL);
  }

  static Process start(List<String> prefix, Path kubeconfig, Path work, Path cdi, Path state, Path log, boolean journal)
      throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), AgentMain.class.getName(),
        kubeconfig.toString(), work.resolve("kubelet").toString(), cdi.toString(), state.toString(), "8",
        Boolean.toString(journal)));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  static FakeKubelet kubelet(Process agent, Path work, Path log) throws Exception {
    KubeletPaths paths = new KubeletPaths(work.resolve("kubelet"), "nodeatlas.io");
    Path dra = paths.draSocket();
    // The socket of the previous process stays until the new one replaces it: wait for this one's log
    // line saying that its sockets serve and its devices are known.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(log) || !Files.readString(log).contains("discovered ")) {
      if (!agent.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("agent did not serve; log:\n" + (Files.exists(log) ? Files.readString(log) : ""));
      }
      try {
        agent.onExit().get(50, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // not yet
      }
    }
    return new FakeKubelet(paths.registrationSocket(), dra);
  }

  private static void awaitNamespace(Process holder) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Path self = Path.of("/proc/self/ns/mnt");
    Path theirs = Path.of("/proc", Long.toString(holder.pid()), "ns", "mnt");
    while (Files.readSymbolicLink(theirs).equals(Files.readSymbolicLink(self))) {
      if (!holder.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("unshare did not start: " + new String(holder.getErrorStream().readAllBytes()));
      }
      try {
        holder.onExit().get(20, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // not yet
      }
    }
  }

  private static void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as("%s: %s", String.join(" ", cmd), out).isZero();
  }
}
