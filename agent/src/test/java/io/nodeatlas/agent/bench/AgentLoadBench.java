package io.nodeatlas.agent.bench;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatus;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.agent.testing.TestPki;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load benchmark behind bench/agent-load.sh: the nodeatlas jar (built by the cli module) runs as its
 * own process (so its RSS is its own), the API server is fabric8's CRUD mock in this process behind an {@link ApiFront}, and this
 * process plays the kubelet over the real sockets. Each round sends N concurrent NodePrepareResources
 * calls of one claim with 8 devices each, then unprepares them all. Two phases against the same agent
 * process: end to end (every claim GET served by the mock), then with the claim GET answered at once by
 * the front, which leaves the agent's own cost (same code path, HTTP round trip included). Prints
 * throughput, p50/p99 latency of Prepare for both, and the agent's RSS idle and under load.
 *
 * <p>Arguments: {@code <nodeatlas jar> <work dir> <N> <rounds> <jvm options...>}.
 */
public final class AgentLoadBench {

  private AgentLoadBench() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    int n = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    List<String> jvm = Arrays.asList(args).subList(4, args.length);
    int devicesPerClaim = 8;

    KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    api.init();
    KubernetesClient client = api.createClient();
    ApiObjects.node(client, "node-a");
    Path report = work.resolve("report.json");
    Files.writeString(report, new NodeReportCodec().toJson(TestDevices.report(TestDevices.gpus(n * devicesPerClaim))));
    List<String> uids = new ArrayList<>();
    for (int c = 0; c < n; c++) {
      List<DeviceRequestAllocationResult> results = new ArrayList<>();
      for (int d = 0; d < devicesPerClaim; d++) {
        results.add(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-" + (c * devicesPerClaim + d)));
      }
      uids.add(ApiObjects.allocatedClaim(client, "bench", "claim-" + c, results).getMetadata().getUid());
    }
    Map<String, byte[]> claimJson = new HashMap<>();
    for (int c = 0; c < n; c++) {
      ResourceClaim stored = client.resources(ResourceClaim.class).inNamespace("bench").withName("claim-" + c).get();
      claimJson.put("/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims/claim-" + c,
          client.getKubernetesSerialization().asJson(stored).getBytes(StandardCharsets.UTF_8));
    }
    // Over TLS, as an agent reaches its API server and as LibraryFloor, the memory row's floor, reads
    // (-Dnodeatlas.bench.tls=false: plain HTTP, as the row measured before).
    TestPki pki = Boolean.parseBoolean(System.getProperty("nodeatlas.bench.tls", "true")) ? new TestPki(work.resolve("pki"))
        : null;
    ApiFront front = new ApiFront(URI.create(client.getConfiguration().getMasterUrl()), claimJson,
        pki == null ? null : pki.serverContext());
    String ca = pki == null ? "" : ", certificate-authority-data: "
        + Base64.getEncoder().encodeToString(pki.caPem().getBytes(StandardCharsets.US_ASCII));
    Path kubeconfig = work.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s"%s}}]
        users: [{name: bench, user: {token: bench}}]
        contexts: [{name: mock, context: {cluster: mock, user: bench}}]
        current-context: mock
        """.formatted(front.url(), ca));

    Path kubeletRoot = work.resolve("kubelet");
    // /var/run is a tmpfs on real hosts, so CDI specs are written to memory; the checkpoint stays on disk.
    Path shm = Path.of("/dev/shm");
    Path cdiRoot = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "nodeatlas-bench-cdi") : work.resolve("cdi");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "run", "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a",
        "--kubelet-root", kubeletRoot.toString(), "--cdi-root", cdiRoot.toString(),
        "--state-dir", work.resolve("state").toString(), "--replay-report", report.toString()));
    Process agent = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve("agent.log").toFile())
        .start();
    KubeletPaths paths = new KubeletPaths(kubeletRoot, "nodeatlas.io");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(paths.registrationSocket())) {
        if (System.nanoTime() > deadline || !agent.isAlive()) {
          throw new IllegalStateException("agent did not start; see " + work.resolve("agent.log"));
        }
        Thread.sleep(50);
      }
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
        // Idle: 5 s after the first publish of the node's slices (over TLS on a loaded machine the start
        // takes longer than the 5 s after registration that were allowed before).
        awaitFirstSlice(client, agent, work.resolve("agent.log"));
        Thread.sleep(5000);
        long idleRss = rssKib(agent.pid());
        long idleAnon = status(agent.pid(), "RssAnon:");
        long idleThreads = status(agent.pid(), "Threads:");
        // -Dnodeatlas.bench.nmt=true (the agent started with -XX:NativeMemoryTracking=summary): the JVM's own
        // account at idle and after the burst, so that the growth can be told apart by kind.
        boolean nmt = Boolean.getBoolean("nodeatlas.bench.nmt");
        String nmtIdle = nmt ? nativeMemory(agent.pid()) : "";

        ExecutorService pool = Executors.newFixedThreadPool(n);
        AtomicLong peakRss = new AtomicLong(idleRss);
        AtomicLong peakAnon = new AtomicLong(idleAnon);
        System.out.printf("claims per round (concurrent): %d, devices per claim: %d, measured rounds: %d (after 1 warm-up)%n",
            n, devicesPerClaim, rounds);
        Phase endToEnd = measure(kubelet, pool, agent, peakRss, peakAnon, uids, rounds, devicesPerClaim);
        endToEnd.print("end to end, claim GET served by the fabric8 mock");
        front.instant(true);
        Phase own = measure(kubelet, pool, agent, peakRss, peakAnon, uids, rounds, devicesPerClaim);
        own.print("agent's own share, claim GET answered at once");
        pool.shutdown();
        // -Dnodeatlas.bench.settleSeconds: how long after the last round the "after load" figures are taken
        // (bench/agent-memory.sh: 35 s, issue 36's "35 s after a 32-claim burst").
        long settle = Long.getLong("nodeatlas.bench.settleSeconds", 2);
        Thread.sleep(TimeUnit.SECONDS.toMillis(settle));
        System.out.printf("agent RSS idle: %.1f MiB, under load (peak sampled): %.1f MiB, idle after load: %.1f MiB"
            + " (%d s after the last round)%n", idleRss / 1024.0, peakRss.get() / 1024.0, rssKib(agent.pid()) / 1024.0, settle);
        // RssAnon leaves out file pages (the jar, libjvm, a CDS archive): those are shared and
        // reclaimable, and a cgroup charges them as page cache rather than as the process's own.
        System.out.printf("agent RssAnon idle: %.1f MiB, under load (peak sampled): %.1f MiB, idle after load: %.1f MiB%n",
            idleAnon / 1024.0, peakAnon.get() / 1024.0, status(agent.pid(), "RssAnon:") / 1024.0);
        System.out.printf("agent threads idle: %d, after load: %d%n", idleThreads, status(agent.pid(), "Threads:"));
        if (nmt) {
          printNativeMemory(nmtIdle, nativeMemory(agent.pid()), settle);
        }
        System.out.printf("agent JVM options: %s%n", String.join(" ", jvm));
      }
    } finally {
      agent.destroy();
      agent.waitFor(30, TimeUnit.SECONDS);
      try (var files = Files.list(cdiRoot)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(cdiRoot);
      front.close();
      client.close();
      api.destroy();
    }
  }

  /** Latencies (sorted) and wall time of the measured rounds. */
  record Phase(List<Long> latencies, long nanos) {
    void print(String label) {
      System.out.printf("%s: throughput %.0f claims/s, prepare latency p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", label,
          latencies.size() / (nanos / 1e9), pct(latencies, 0.50), pct(latencies, 0.99),
          latencies.get(latencies.size() - 1) / 1e6);
    }
  }

  private static Phase measure(FakeKubelet kubelet, ExecutorService pool, Process agent, AtomicLong peakRss,
      AtomicLong peakAnon, List<String> uids, int rounds, int devicesPerClaim) throws Exception {
    int n = uids.size();
    List<Long> latencies = new ArrayList<>();
    long measuredNanos = 0;
    for (int r = 0; r < rounds + 1; r++) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Long>> calls = new ArrayList<>();
      for (int c = 0; c < n; c++) {
        Claim claim = FakeKubelet.claim("bench", "claim-" + c, uids.get(c));
        calls.add(pool.submit(() -> {
          go.await();
          long t0 = System.nanoTime();
          NodePrepareResourceResponse e = kubelet.prepare(claim).getClaimsOrThrow(claim.getUid());
          long t = System.nanoTime() - t0;
          if (!e.getError().isEmpty() || e.getDevicesCount() != devicesPerClaim) {
            throw new IllegalStateException("prepare failed: " + e);
          }
          return t;
        }));
      }
      long start = System.nanoTime();
      go.countDown();
      List<Long> round = new ArrayList<>();
      for (Future<Long> f : calls) {
        round.add(f.get());
      }
      long elapsed = System.nanoTime() - start;
      peakRss.accumulateAndGet(rssKib(agent.pid()), Math::max);
      peakAnon.accumulateAndGet(status(agent.pid(), "RssAnon:"), Math::max);
      for (int c = 0; c < n; c++) {
        kubelet.unprepare(FakeKubelet.claim("bench", "claim-" + c, uids.get(c)));
      }
      if (r > 0) { // round 0 warms the JIT up
        latencies.addAll(round);
        measuredNanos += elapsed;
      }
    }
    latencies.sort(null);
    return new Phase(latencies, measuredNanos);
  }

  /** {@code jcmd PID VM.native_memory summary}'s output. */
  static String nativeMemory(long pid) throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid),
        "VM.native_memory", "summary").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  /** The committed KiB of each NMT category at idle and after the burst, and the difference. */
  static void printNativeMemory(String idle, String after, long settle) {
    Map<String, Long> a = nmtCommitted(idle);
    Map<String, Long> b = nmtCommitted(after);
    System.out.printf("NMT committed KiB: idle -> %d s after the burst (difference)%n", settle);
    for (String k : b.keySet()) {
      long x = a.getOrDefault(k, 0L);
      long y = b.get(k);
      System.out.printf("  %-28s %8d -> %8d (%+d)%n", k, x, y, y - x);
    }
  }

  static Map<String, Long> nmtCommitted(String summary) {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("(?m)^-?\\s*([A-Za-z][A-Za-z ]*?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)").matcher(summary);
    while (m.find()) {
      out.put(m.group(1).trim(), Long.parseLong(m.group(2)));
    }
    java.util.regex.Matcher total = java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB").matcher(summary);
    if (total.find()) {
      out.put("Total", Long.parseLong(total.group(1)));
    }
    return out;
  }

  static double pct(List<Long> sorted, double p) {
    int i = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1e6;
  }

  static long rssKib(long pid) throws java.io.IOException {
    return status(pid, "VmRSS:");
  }

  /** A number from /proc/PID/status ({@code VmRSS:} and {@code RssAnon:} in KiB, {@code Threads:}). */
  static long status(long pid, String key) throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(key)) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  /**
   * Waits, at most 120 s, for the agent's first ResourceSlice: woken by the API's watch event, or by the
   * agent's exit, whichever comes first.
   */
  private static void awaitFirstSlice(KubernetesClient client, Process agent, Path log) throws InterruptedException {
    java.util.concurrent.CountDownLatch published = new java.util.concurrent.CountDownLatch(1);
    agent.onExit().thenRun(published::countDown);
    try (io.fabric8.kubernetes.client.Watch watch = client.resources(ResourceSlice.class).watch(
        new io.fabric8.kubernetes.client.Watcher<ResourceSlice>() {
          @Override
          public void eventReceived(Action action, ResourceSlice slice) {
            published.countDown();
          }

          @Override
          public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
        })) {
      if (!client.resources(ResourceSlice.class).list().getItems().isEmpty()) {
        return;
      }
      if (!published.await(120, TimeUnit.SECONDS) || !agent.isAlive()) {
        throw new IllegalStateException("agent published no ResourceSlice within 120 s; see " + log);
      }
    }
  }
}
