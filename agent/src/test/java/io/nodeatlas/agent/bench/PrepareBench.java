package io.nodeatlas.agent.bench;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatus;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.files.AtomicFiles;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Prepare latency behind bench/prepare.sh (issue 14's row "Prepare of one claim with 8 devices"): the
 * nodeatlas jar runs as its own process with the JVM options users run it with, state and CDI
 * directories on tmpfs ({@code /dev/shm}), and the claim GET answered at once by an {@link ApiFront}
 * (the agent still makes the HTTP call and parses the answer). This process plays the kubelet over the
 * real unix socket: at concurrency N, N workers each send NodePrepareResources of their own claim (8
 * devices) and then NodeUnprepareResources, round after round; only Prepare is timed.
 *
 * <p>The floor, measured in the same run at the same concurrency, in blocks of rounds interleaved with
 * the Prepare rounds: one gRPC round trip to the same agent over the same socket (a
 * {@code grpc.health.v1} Check: no work behind it), one GET of the claim from the same front, and two
 * small atomic file writes on the same file system ({@link AtomicFiles#write}: temporary file, fsync,
 * rename, directory fsync), the least a Prepare that reads its claim and records a CDI spec and a
 * checkpoint entry can cost (issue 36).
 *
 * <p>{@code -Dnodeatlas.bench.stateDir=DIR} puts state, CDI and the floor's files under DIR (the
 * machine's disk) instead of tmpfs; {@code -Dnodeatlas.bench.concurrency=1,32} the concurrencies run.
 * Besides the tables for people it prints one line per concurrency for bench/prepare.sh:
 * {@code RESULT N p50 p99 floor-p50 floor-p99 agent-CPU-ms-per-Prepare+Unprepare agent-CPU-ms-per-floor-call
 * agent-waits-per-Prepare+Unprepare agent-waits-per-floor-call}.
 *
 * <p>With {@code -Dnodeatlas.bench.claimBytes=B} each claim answer carries an annotation of B bytes
 * (issue 12 case 3: 32 concurrent claims of 1.4 MB); the agent's peak RSS ({@code VmHWM}) is printed at
 * the end either way.
 *
 * <p>Arguments: {@code <nodeatlas jar> <work dir> <rounds at N=1> <rounds at N=32> <jvm options...>}.
 */
public final class PrepareBench {

  private static final int DEVICES_PER_CLAIM = 8;

  private PrepareBench() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    int roundsSingle = Integer.parseInt(args[2]);
    int roundsMany = Integer.parseInt(args[3]);
    List<String> jvm = Arrays.asList(args).subList(4, args.length);
    int[] concurrency = Arrays.stream(System.getProperty("nodeatlas.bench.concurrency", "1,32").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int claims = Arrays.stream(concurrency).max().orElseThrow();
    int padBytes = Integer.getInteger("nodeatlas.bench.claimBytes", 0);

    KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    api.init();
    KubernetesClient client = api.createClient();
    ApiObjects.node(client, "node-a");
    Path report = work.resolve("report.json");
    Files.writeString(report, new NodeReportCodec().toJson(TestDevices.report(TestDevices.gpus(claims * DEVICES_PER_CLAIM))));
    List<String> uids = new ArrayList<>();
    Map<String, byte[]> claimJson = new HashMap<>();
    for (int c = 0; c < claims; c++) {
      List<DeviceRequestAllocationResult> results = new ArrayList<>();
      for (int d = 0; d < DEVICES_PER_CLAIM; d++) {
        results.add(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-" + (c * DEVICES_PER_CLAIM + d)));
      }
      ResourceClaim stored = ApiObjects.allocatedClaim(client, "bench", "claim-" + c, results);
      uids.add(stored.getMetadata().getUid());
      if (padBytes > 0) {
        stored.getMetadata().setAnnotations(Map.of("bench.nodeatlas.io/pad", "x".repeat(padBytes)));
      }
      claimJson.put("/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims/claim-" + c,
          client.getKubernetesSerialization().asJson(stored).getBytes(StandardCharsets.UTF_8));
    }
    ApiFront front = new ApiFront(URI.create(client.getConfiguration().getMasterUrl()), claimJson);
    front.instant(true);
    Path kubeconfig = work.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s"}}]
        users: [{name: bench, user: {token: bench}}]
        contexts: [{name: mock, context: {cluster: mock, user: bench}}]
        current-context: mock
        """.formatted(front.url()));

    // State, CDI and the floor's files on tmpfs (as /var/run is on real hosts), or under the directory
    // that -Dnodeatlas.bench.stateDir names (the machine's real disk, for the row beside the tmpfs one).
    String stateBase = System.getProperty("nodeatlas.bench.stateDir", "");
    Path shm = Path.of("/dev/shm");
    Path tmpfs = !stateBase.isEmpty() ? Files.createTempDirectory(Files.createDirectories(Path.of(stateBase)), "nodeatlas-prepare-bench")
        : Files.isDirectory(shm) ? Files.createTempDirectory(shm, "nodeatlas-prepare-bench") : work.resolve("tmpfs");
    Path cdiRoot = Files.createDirectories(tmpfs.resolve("cdi"));
    Path stateDir = tmpfs.resolve("state");
    Path floorDir = Files.createDirectories(tmpfs.resolve("floor"));
    Path kubeletRoot = work.resolve("kubelet");
    // The floor's claim GET keeps as many connections alive as the agent's JVM options let it.
    jvm.stream().filter(o -> o.startsWith("-Dhttp.maxConnections=")).findFirst()
        .ifPresent(o -> System.setProperty("http.maxConnections", o.substring(o.indexOf('=') + 1)));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "run", "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a",
        "--kubelet-root", kubeletRoot.toString(), "--cdi-root", cdiRoot.toString(),
        "--state-dir", stateDir.toString(), "--replay-report", report.toString()));
    if (System.getenv("NODEATLAS_VERBOSITY") != null) {
      cmd.addAll(List.of("-v", System.getenv("NODEATLAS_VERBOSITY")));
    }
    Process agent = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve("agent.log").toFile())
        .start();
    KubeletPaths paths = new KubeletPaths(kubeletRoot, "nodeatlas.io");
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    ExecutorService pool = Executors.newFixedThreadPool(claims);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(paths.registrationSocket())) {
        if (System.nanoTime() > deadline || !agent.isAlive()) {
          throw new IllegalStateException("agent did not start; see " + work.resolve("agent.log"));
        }
        Thread.sleep(50);
      }
      ManagedChannel dra = UnixSocketServers.channel(paths.draSocket(), group);
      try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
        for (int attempt = 0; ; attempt++) {
          try {
            kubelet.registration().notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
            break;
          } catch (io.grpc.StatusRuntimeException e) {
            if (attempt == 20) {
              throw e;
            }
            Thread.sleep(250); // a cold JVM may miss the first 1 s deadline, as a kubelet would retry
          }
        }
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(dra);
        byte[] small = "{\"cdiVersion\":\"0.6.0\",\"kind\":\"nodeatlas.io/claim\",\"devices\":[]}".repeat(8)
            .getBytes(StandardCharsets.UTF_8);
        Floor floor = new Floor(health, floorDir, small, front.url() + "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims/claim-");
        System.out.printf("Prepare of one claim with %d devices; state and CDI on %s; claim GET answered at once"
            + " (%d bytes)%n", DEVICES_PER_CLAIM, tmpfs, claimJson.values().iterator().next().length);
        System.out.printf("floor: one gRPC round trip (grpc.health.v1 Check) to the agent + one claim GET from the same"
            + " front + two atomic writes beside the state; interleaved round by round with the Prepare rounds%n");
        long idleRss = status(agent.pid(), "VmRSS:");
        // The agent's CPU while no call runs (its timers: metrics, device health, hand-over watch), which
        // a Prepare's CPU includes for the time it takes: at N=1 a Prepare+Unprepare takes a few ms.
        long idle0 = cpuTicks(agent.pid());
        Thread.sleep(3000);
        double idleMsPerSecond = ticksToMs(cpuTicks(agent.pid()) - idle0) / 3;
        System.out.printf("%-5s %-9s %9s %9s %9s | %9s %9s | %8s %8s | %s%n", "N", "samples", "p50 ms", "p99 ms", "max ms",
            "floor p50", "floor p99", "p50/flr", "p99/flr", "floor parts p50/p99 ms: gRPC, GET, writes");
        List<String> cpu = new ArrayList<>();
        List<String> machine = new ArrayList<>();
        List<String> handOffs = new ArrayList<>();
        for (int n : concurrency) {
          int rounds = n == 1 ? roundsSingle : roundsMany;
          // Warm-up at this concurrency (JIT, connection pools), not measured.
          run(pool, n, Math.max(20, rounds / 5), w -> prepareOnce(kubelet, w, uids.get(w)));
          run(pool, n, Math.max(20, rounds / 5), w -> floor.once(w));
          List<Long> prepare = new ArrayList<>();
          List<Long> floorSamples = new ArrayList<>();
          floor.parts.forEach(List::clear);
          // -Dnodeatlas.bench.jfr=SETTINGS:FILE (bench/profile-prepare.sh): Flight Recorder in the agent for the
          // measured rounds of this concurrency only, so that start-up and warm-up stay out of the profile.
          String jfr = System.getProperty("nodeatlas.bench.jfr", "");
          if (!jfr.isEmpty()) {
            jcmd(agent.pid(), "JFR.start", "name=bench", "settings=" + jfr.substring(0, jfr.indexOf(':')));
          }
          long prepareTicks = 0;
          long floorTicks = 0;
          long prepareWaits = 0;
          long floorWaits = 0;
          Map<String, Long> prepareByThread = new java.util.TreeMap<>();
          Map<String, Long> floorByThread = new java.util.TreeMap<>();
          // Blocks of rounds, a Prepare block and then a floor block (one round each at N=32, 20 at N=1, so that
          // reading the counters stays rare): both see the same load on a shared machine.
          int block = Math.max(1, 20 / n);
          for (int r = 0; r < rounds; r += block) {
            long cpu0 = cpuTicks(agent.pid());
            Map<String, Long> byThread0 = waitsByThread(agent.pid());
            long waits0 = total(byThread0);
            prepare.addAll(run(pool, n, block, w -> prepareOnce(kubelet, w, uids.get(w))));
            long cpu1 = cpuTicks(agent.pid());
            Map<String, Long> byThread1 = waitsByThread(agent.pid());
            long waits1 = total(byThread1);
            floorSamples.addAll(run(pool, n, block, w -> floor.once(w)));
            long cpu2 = cpuTicks(agent.pid());
            Map<String, Long> byThread2 = waitsByThread(agent.pid());
            long waits2 = total(byThread2);
            byThread1.forEach((k, v) -> prepareByThread.merge(k, v - byThread0.getOrDefault(k, 0L), Long::sum));
            byThread2.forEach((k, v) -> floorByThread.merge(k, v - byThread1.getOrDefault(k, 0L), Long::sum));
            prepareTicks += cpu1 - cpu0;
            floorTicks += cpu2 - cpu1;
            prepareWaits += waits1 - waits0;
            floorWaits += waits2 - waits1;
          }
          if (!jfr.isEmpty()) {
            jcmd(agent.pid(), "JFR.stop", "name=bench", "filename=" + jfr.substring(jfr.indexOf(':') + 1) + "-" + n + ".jfr");
          }
          prepare.sort(null);
          floorSamples.sort(null);
          double cpuPrepare = ticksToMs(prepareTicks) / prepare.size();
          double cpuFloor = ticksToMs(floorTicks) / floorSamples.size();
          cpu.add(String.format("%-5d %13.3f %13.3f %8.1fx %11.1f %11.1f", n, cpuPrepare, cpuFloor,
              (double) prepareTicks / Math.max(1, floorTicks), (double) prepareWaits / prepare.size(),
              (double) floorWaits / floorSamples.size()));
          double p50 = pct(prepare, 0.50);
          double p99 = pct(prepare, 0.99);
          double f50 = pct(floorSamples, 0.50);
          double f99 = pct(floorSamples, 0.99);
          StringBuilder parts = new StringBuilder();
          for (List<Long> part : floor.parts) {
            List<Long> sorted = new ArrayList<>(part);
            sorted.sort(null);
            parts.append(String.format(" %.3f/%.3f", pct(sorted, 0.50), pct(sorted, 0.99)));
          }
          System.out.printf("%-5d %-9d %9.2f %9.2f %9.2f | %9.3f %9.3f | %7.1fx %7.1fx |%s%n", n, prepare.size(), p50, p99,
              prepare.get(prepare.size() - 1) / 1e6, f50, f99, p50 / f50, p99 / f99, parts);
          // Where the agent's threads blocked, by thread name (digits dropped): the profile of the hand-offs.
          StringBuilder where = new StringBuilder();
          int samples = prepare.size();
          prepareByThread.entrySet().stream().filter(e -> e.getValue() > 0)
              .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
              .forEach(e -> where.append(String.format(" %s %.2f", e.getKey(), (double) e.getValue() / samples)));
          StringBuilder floorWhere = new StringBuilder();
          floorByThread.entrySet().stream().filter(e -> e.getValue() > 0)
              .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
              .forEach(e -> floorWhere.append(String.format(" %s %.2f", e.getKey(), (double) e.getValue() / floorSamples.size())));
          handOffs.add(String.format("N=%d agent waits per Prepare+Unprepare by thread:%s%n      per floor call:%s", n, where,
              floorWhere));
          machine.add(String.format(java.util.Locale.ROOT, "RESULT %d %.3f %.3f %.3f %.3f %.3f %.3f %.2f %.2f", n, p50, p99,
              f50, f99, cpuPrepare, cpuFloor, (double) prepareWaits / prepare.size(), (double) floorWaits / floorSamples.size()));
        }
        // The agent's own CPU time (user + system, /proc/PID/stat) per call: less swayed by other load on
        // the machine than latency is. Prepare's includes the Unprepare that follows it; the floor's is the
        // agent's side of the gRPC round trip only (its GET and file writes are this process's and the front's).
        // And how often its threads went to sleep waiting (voluntary context switches, summed over its
        // threads): each is a hand-off between threads or a wait for I/O, and the wake-up that ends it
        // costs latency on a busy machine; also independent of other load.
        System.out.printf("%-5s %13s %13s %9s %11s %11s%n", "N", "agent CPU ms", "floor CPU ms", "ratio", "agent waits",
            "floor waits");
        System.out.printf("%-5s %13s %13s %9s %11s %11s%n", "", "per Prep+Unp", "per gRPC call", "", "per Prep+Unp",
            "per call");
        cpu.forEach(System.out::println);
        System.out.printf("agent CPU while idle: %.2f ms per second%n", idleMsPerSecond);
        handOffs.forEach(System.out::println);
        System.out.printf("agent RSS idle before the runs: %.1f MiB, peak (VmHWM): %.1f MiB%n", idleRss / 1024.0,
            status(agent.pid(), "VmHWM:") / 1024.0);
        System.out.printf("agent JVM options: %s%n", String.join(" ", jvm));
        machine.forEach(System.out::println);
      } finally {
        dra.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      agent.destroy();
      agent.waitFor(30, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      try (Stream<Path> files = Files.walk(tmpfs)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
      front.close();
      client.close();
      api.destroy();
    }
  }

  /** Prepare (timed) and Unprepare (not timed) of worker {@code w}'s claim; returns the Prepare's nanoseconds. */
  private static long prepareOnce(FakeKubelet kubelet, int w, String uid) {
    Claim claim = FakeKubelet.claim("bench", "claim-" + w, uid);
    long t0 = System.nanoTime();
    NodePrepareResourceResponse e = kubelet.prepare(claim).getClaimsOrThrow(uid);
    long t = System.nanoTime() - t0;
    if (!e.getError().isEmpty() || e.getDevicesCount() != DEVICES_PER_CLAIM) {
      throw new IllegalStateException("prepare failed: " + e);
    }
    String error = kubelet.unprepare(claim).getClaimsOrThrow(uid).getError();
    if (!error.isEmpty()) {
      throw new IllegalStateException("unprepare failed: " + error);
    }
    return t;
  }

  /**
   * The floor of one Prepare: one gRPC round trip to the agent, one claim GET from the same front (the
   * JDK's blocking HTTP client, the answer read whole but not parsed) and two small atomic writes beside
   * the agent's state, one after the other; {@link #parts} keeps each part's nanoseconds.
   */
  static final class Floor {
    private final HealthGrpc.HealthBlockingStub health;
    private final Path dir;
    private final byte[] content;
    private final String claimUrl;
    final List<List<Long>> parts = List.of(new java.util.concurrent.CopyOnWriteArrayList<>(),
        new java.util.concurrent.CopyOnWriteArrayList<>(), new java.util.concurrent.CopyOnWriteArrayList<>());

    Floor(HealthGrpc.HealthBlockingStub health, Path dir, byte[] content, String claimUrl) {
      this.health = health;
      this.dir = dir;
      this.content = content;
      this.claimUrl = claimUrl;
    }

    long once(int w) throws Exception {
      long t0 = System.nanoTime();
      health.check(HealthCheckRequest.getDefaultInstance());
      long t1 = System.nanoTime();
      java.net.HttpURLConnection get = (java.net.HttpURLConnection) URI.create(claimUrl + w).toURL().openConnection();
      get.setRequestProperty("Accept", "application/json");
      get.setRequestProperty("Authorization", "Bearer bench");
      try (java.io.InputStream in = get.getInputStream()) {
        if (get.getResponseCode() != 200 || in.readAllBytes().length == 0) {
          throw new IllegalStateException("claim GET failed: " + get.getResponseCode());
        }
      }
      long t2 = System.nanoTime();
      AtomicFiles.write(dir.resolve("spec-" + w + ".json"), content, AtomicFiles.WORLD_READABLE);
      AtomicFiles.write(dir.resolve("checkpoint-" + w + ".json"), content, AtomicFiles.OWNER_ONLY);
      long t3 = System.nanoTime();
      parts.get(0).add(t1 - t0);
      parts.get(1).add(t2 - t1);
      parts.get(2).add(t3 - t2);
      return t3 - t0;
    }
  }

  interface Work {
    long once(int worker) throws Exception;
  }

  /** {@code rounds} rounds of {@code n} workers started together; every sample, sorted. */
  private static List<Long> run(ExecutorService pool, int n, int rounds, Work work) throws Exception {
    List<Long> samples = new ArrayList<>(n * rounds);
    for (int r = 0; r < rounds; r++) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Long>> calls = new ArrayList<>(n);
      for (int w = 0; w < n; w++) {
        int worker = w;
        Callable<Long> task = () -> {
          go.await();
          return work.once(worker);
        };
        calls.add(pool.submit(task));
      }
      go.countDown();
      for (Future<Long> f : calls) {
        samples.add(f.get());
      }
    }
    samples.sort(null);
    return samples;
  }

  /** User plus system CPU time of {@code pid} in clock ticks ({@code /proc/PID/stat} fields 14 and 15, proc(5)). */
  static long cpuTicks(long pid) throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // The command name (field 2) may hold spaces; the fields after it start past its closing parenthesis.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /**
   * Voluntary context switches of every thread of {@code pid} ({@code voluntary_ctxt_switches} of
   * /proc/PID/task/TID/status, proc(5)), summed by thread name ({@code comm}, digits dropped): how often
   * its threads blocked. Threads that ended meanwhile are not counted, so a difference is a lower bound.
   */
  static Map<String, Long> waitsByThread(long pid) throws java.io.IOException {
    Map<String, Long> sum = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path t : tasks.toList()) {
        try {
          String name = Files.readString(t.resolve("comm")).trim().replaceAll("[0-9]+", "#");
          for (String line : Files.readAllLines(t.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
              sum.merge(name, Long.parseLong(line.substring(line.indexOf(':') + 1).trim()), Long::sum);
            }
          }
        } catch (java.nio.file.NoSuchFileException ended) {
          // The thread ended since the listing.
        }
      }
    }
    return sum;
  }

  static long total(Map<String, Long> byThread) {
    return byThread.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Runs {@code jcmd PID args...} with this JVM's jcmd; fails when it does. */
  static void jcmd(long pid, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid)));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", args) + ": " + out);
    }
  }

  /** Clock ticks in milliseconds: USER_HZ is 100 on every Linux ABI the agent runs on (sysconf(_SC_CLK_TCK)). */
  static double ticksToMs(long ticks) {
    return ticks * 10.0;
  }

  /** A number from /proc/PID/status ({@code VmRSS:}, {@code VmHWM:} in KiB). */
  static long status(long pid, String key) throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(key)) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  static double pct(List<Long> sorted, double p) {
    int i = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1e6;
  }
}
