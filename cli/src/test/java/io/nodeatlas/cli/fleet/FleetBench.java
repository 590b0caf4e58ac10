package io.nodeatlas.cli.fleet;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.match.ClaimMatcher;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.fleet.FleetMatcher;
import io.nodeatlas.match.fleet.FleetReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet view at scale (bench/fleet.sh): a generated cluster of N nodes with 16 devices each (8
 * exclusive GPUs, 4 RDMA NICs, 2 shared CPU pools, 2 shared hugepage pools) and 4 allocated claims per
 * node, as list pages of 500 items the way the API server serves them.
 *
 * <pre>
 *   FleetBench write DIR NODES        the pages (nodes, deviceclasses, resourceslices, resourceclaims) and claim.yaml
 *   FleetBench floor DIR WARM ROUNDS  parse every page into a tree and drop it: the floor
 *   FleetBench full DIR WARM ROUNDS   what `match --cluster` does once the pages have arrived: read them into
 *                                     the fleet (FleetInput), build each node's inventory, match claim.yaml
 *   FleetBench phases DIR ROUNDS      a full round split into floor, read, build, match and collector time
 *   FleetBench thread DIR ROUNDS      the main thread's CPU (by phase) and allocated MB of floor and full rounds
 * </pre>
 * Each timing mode prints "wall_ms cpu_ms" (medians of its rounds after the warm-up rounds; CPU of the whole
 * process, {@link ProcessCpu}), the verdict summary and the collectors' pause time.
 */
public final class FleetBench {

  static final int PAGE = 500;
  static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[1]);
    switch (args[0]) {
      case "write" -> write(dir, Integer.parseInt(args[2]));
      case "phases" -> phases(dir, Integer.parseInt(args[2]));
      case "thread" -> thread(dir, Integer.parseInt(args[2]));
      case "live" -> live(dir);
      case "floor", "full" -> time(args[0], dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  static void time(String mode, Path dir, int warm, int rounds) throws Exception {
    List<byte[]> pages = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".page.json")).sorted().toList()) {
        pages.add(Files.readAllBytes(p));
      }
    }
    Documents claim = new ClaimDocumentParser().parseFile(dir.resolve("claim.yaml"));
    double[] ms = new double[rounds];
    double[] cpu = new double[rounds];
    double[] gc = new double[rounds];
    ProcessCpu clock = new ProcessCpu();
    String summary = "";
    for (int i = 0; i < warm + rounds; i++) {
      long start = System.nanoTime();
      long gcStart = gcMillis();
      Map<String, Long> cpuStart = clock.threads();
      summary = mode.equals("floor") ? floor(pages) : full(pages, claim);
      if (i >= warm) {
        cpu[i - warm] = clock.since(cpuStart) / 1e6;
        ms[i - warm] = (System.nanoTime() - start) / 1e6;
        gc[i - warm] = gcMillis() - gcStart;
      }
    }
    Arrays.sort(ms);
    Arrays.sort(cpu);
    Arrays.sort(gc);
    // Wall and process CPU (collector and compiler threads included) medians: on a shared, loaded machine
    // the CPU time is the steadier figure; the collectors' pause time beside.
    System.out.printf("%.1f %.1f %s; collector pauses %.0f ms (%s)%n", median(ms), median(cpu), summary, median(gc),
        clock.source());
  }

  /**
   * The process's CPU time with a nanosecond clock: the sum over its threads of the time each ran
   * ({@code /proc/self/task/TID/schedstat}, first field), collector and compiler threads included; a thread
   * that ends between two readings loses what it ran since the first. Where that file cannot be read, the
   * JVM's process CPU time (a clock of 10 ms ticks on Linux).
   */
  static final class ProcessCpu {
    private final boolean schedstat = Files.isReadable(Path.of("/proc/self/task/" + ProcessHandle.current().pid()
        + "/schedstat"));
    private final com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    String source() {
      return schedstat ? "CPU from schedstat, ns" : "CPU from the JVM, 10 ms ticks";
    }

    /** Each thread's CPU nanoseconds so far, by thread id. */
    Map<String, Long> threads() throws IOException {
      Map<String, Long> out = new HashMap<>();
      if (!schedstat) {
        out.put("process", os.getProcessCpuTime());
        return out;
      }
      try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
        for (Path task : tasks) {
          try {
            String line = Files.readString(task.resolve("schedstat"));
            out.put(task.getFileName().toString(), Long.parseLong(line.substring(0, line.indexOf(' '))));
          } catch (IOException | RuntimeException gone) {
            // The thread ended while the list was read.
          }
        }
      }
      return out;
    }

    /** CPU nanoseconds the process ran since {@code start} ({@link #threads()}). */
    long since(Map<String, Long> start) throws IOException {
      long total = 0;
      for (Map.Entry<String, Long> now : threads().entrySet()) {
        total += now.getValue() - start.getOrDefault(now.getKey(), 0L);
      }
      return total;
    }
  }

  /**
   * Where the time of a full round goes: the floor, then reading the items, building the inventories and
   * matching, in process CPU (collector and compiler included) and the collector's own time; the medians
   * of {@code rounds} after as many warm-up rounds.
   */
  static void phases(Path dir, int rounds) throws Exception {
    List<byte[]> pages = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".page.json")).sorted().toList()) {
        pages.add(Files.readAllBytes(p));
      }
    }
    Documents claim = new ClaimDocumentParser().parseFile(dir.resolve("claim.yaml"));
    var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    String[] names = {"floor", "read", "build", "match", "gc"};
    double[][] ms = new double[names.length][rounds];
    String fitting = "";
    for (int r = 0; r < 2 * rounds; r++) {
      long g0 = gcMillis();
      long c0 = os.getProcessCpuTime();
      floor(pages);
      long c1 = os.getProcessCpuTime();
      long g1 = gcMillis();
      FleetInput input = new FleetInput();
      for (byte[] page : pages) {
        readPage(input, page);
      }
      long c2 = os.getProcessCpuTime();
      var nodes = input.fleet();
      long c3 = os.getProcessCpuTime();
      Documents all = io.nodeatlas.cli.match.MatchCommandAccess.withClusterClasses(claim, input);
      FleetReport report = new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
          .match(nodes, all, FleetMatcher.Placement.ANY, new ArrayList<>());
      long c4 = os.getProcessCpuTime();
      long g2 = gcMillis();
      fitting = report.summary().replaceAll(":.*", "");
      if (r >= rounds) {
        double[] row = {(c1 - c0) / 1e6, (c2 - c1) / 1e6, (c3 - c2) / 1e6, (c4 - c3) / 1e6, g2 - g1};
        for (int k = 0; k < names.length; k++) {
          ms[k][r - rounds] = row[k];
        }
        System.out.printf("round %d: floor %.0f ms (gc %d); read %.0f, build %.0f, match %.0f ms (gc %d)%n", r - rounds,
            row[0], g1 - g0, row[1], row[2], row[3], g2 - g1);
      }
    }
    StringBuilder out = new StringBuilder("medians, process CPU ms:");
    for (int k = 0; k < names.length; k++) {
      Arrays.sort(ms[k]);
      out.append(' ').append(names[k]).append(' ').append(Math.round(ms[k][rounds / 2]));
    }
    System.out.println(out + " (" + fitting + ")");
  }

  /**
   * The main thread's own CPU (ThreadMXBean, nanoseconds) and allocated bytes for the floor and for a full
   * round split into reading the pages, building the inventories and matching, with the collector's time
   * of each round beside (its threads, not the main one): steadier than process CPU on a loaded machine,
   * and the allocation is what the collector pays for. Medians of {@code rounds} after as many warm-up
   * rounds; the floor and the full round alternate, so load hits both alike.
   */
  static void thread(Path dir, int rounds) throws Exception {
    List<byte[]> pages = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".page.json")).sorted().toList()) {
        pages.add(Files.readAllBytes(p));
      }
    }
    Documents claim = new ClaimDocumentParser().parseFile(dir.resolve("claim.yaml"));
    var t = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    String[] names = {"floor ms", "floor MB", "floor gc ms", "read ms", "build ms", "match ms", "full ms", "full MB",
        "full gc ms"};
    double[][] v = new double[names.length][rounds];
    for (int r = 0; r < 2 * rounds; r++) {
      long g0 = gcMillis();
      long c0 = t.getCurrentThreadCpuTime();
      long m0 = t.getThreadAllocatedBytes(id);
      floor(pages);
      long c1 = t.getCurrentThreadCpuTime();
      long m1 = t.getThreadAllocatedBytes(id);
      long g1 = gcMillis();
      FleetInput input = new FleetInput();
      for (byte[] page : pages) {
        readPage(input, page);
      }
      long c2 = t.getCurrentThreadCpuTime();
      var nodes = input.fleet();
      long c3 = t.getCurrentThreadCpuTime();
      Documents all = io.nodeatlas.cli.match.MatchCommandAccess.withClusterClasses(claim, input);
      new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
          .match(nodes, all, FleetMatcher.Placement.ANY, new ArrayList<>());
      long c4 = t.getCurrentThreadCpuTime();
      long m4 = t.getThreadAllocatedBytes(id);
      long g4 = gcMillis();
      if (r >= rounds) {
        double[] row = {(c1 - c0) / 1e6, (m1 - m0) / 1e6, g1 - g0, (c2 - c1) / 1e6, (c3 - c2) / 1e6, (c4 - c3) / 1e6,
            (c4 - c1) / 1e6, (m4 - m1) / 1e6, g4 - g1};
        for (int k = 0; k < names.length; k++) {
          v[k][r - rounds] = row[k];
        }
      }
    }
    StringBuilder out = new StringBuilder("main thread medians:");
    for (int k = 0; k < names.length; k++) {
      Arrays.sort(v[k]);
      out.append(' ').append(names[k]).append(' ').append(Math.round(v[k][rounds / 2]));
    }
    System.out.println(out + String.format(" (full / floor %.2f)", median(v[6]) / median(v[0])));
  }

  static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }

  static long gcMillis() {
    long total = 0;
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  /**
   * The heap the fleet needs: the fleet read and every node's inventory built and matched, then a full
   * collection while they are still held; prints the used heap in MiB.
   */
  static void live(Path dir) throws Exception {
    List<byte[]> pages = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".page.json")).sorted().toList()) {
        pages.add(Files.readAllBytes(p));
      }
    }
    Documents claim = new ClaimDocumentParser().parseFile(dir.resolve("claim.yaml"));
    FleetInput input = new FleetInput();
    for (byte[] page : pages) {
      readPage(input, page);
    }
    pages.clear();
    var nodes = input.fleet();
    FleetReport report = new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
        .match(nodes, io.nodeatlas.cli.match.MatchCommandAccess.withClusterClasses(claim, input), FleetMatcher.Placement.ANY,
            new ArrayList<>());
    System.gc();
    Runtime rt = Runtime.getRuntime();
    System.out.printf("%d %d %d%n", (rt.totalMemory() - rt.freeMemory()) >> 20, nodes.size(), report.verdicts().size());
  }

  /** One list page read into the fleet as the cluster reader hands it over: its token stream, no tree. */
  static void readPage(FleetInput input, byte[] page) throws IOException {
    String kind;
    try (JsonParser p = JSON.createParser(page)) {
      // Not an API field: the page's metadata.kind says what the list call's path says for the cluster reader.
      kind = kindOf(p);
    }
    try (JsonParser p = JSON.createParser(page)) {
      ClusterReader.page(p, item -> input.addObject(item, kind, "bench"), () -> { });
    } catch (ClusterReader.ApiException e) {
      throw new IOException(e.getMessage());
    }
  }

  /** The page's metadata.kind, written before its items. */
  private static String kindOf(JsonParser p) throws IOException {
    p.nextToken();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      if (field.equals("metadata")) {
        return ((JsonNode) p.readValueAsTree()).path("kind").asText();
      }
      p.skipChildren();
    }
    return "";
  }

  /** Every page parsed into a tree, every item visited. */
  static String floor(List<byte[]> pages) throws IOException {
    long items = 0;
    for (byte[] page : pages) {
      items += JSON.readTree(page).path("items").size();
    }
    return items + " items";
  }

  static String full(List<byte[]> pages, Documents claim) throws Exception {
    FleetInput input = new FleetInput();
    for (byte[] page : pages) {
      readPage(input, page);
    }
    Documents all = io.nodeatlas.cli.match.MatchCommandAccess.withClusterClasses(claim, input);
    FleetReport report = new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
        .match(input.fleet(), all, FleetMatcher.Placement.ANY, new ArrayList<>());
    return report.summary().replaceAll(":.*", "");
  }

  static void write(Path dir, int nodes) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("claim.yaml"), """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: trainer, namespace: default}
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu
                count: 2
                selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].productName == "NVIDIA H100 80GB HBM3"'}}]
            - name: nic
              exactly: {deviceClassName: rdma}
            - name: cpus
              exactly: {deviceClassName: cpu, capacity: {requests: {nodeatlas.io/cpu: "16"}}}
            constraints:
            - matchAttribute: resource.kubernetes.io/numaNode
        """);
    page(dir, "0-nodes", "Node", nodes, (g, i) -> {
      g.writeStartObject();
      g.writeObjectFieldStart("metadata");
      g.writeStringField("name", node(i));
      g.writeObjectFieldStart("labels");
      g.writeStringField("kubernetes.io/hostname", node(i));
      g.writeEndObject();
      g.writeEndObject();
      g.writeEndObject();
    });
    String[][] classes = {{"gpu", "gpu"}, {"rdma", "rdma"}, {"cpu", "cpu"}, {"hugepages", "hugepages"}};
    page(dir, "1-deviceclasses", "DeviceClass", classes.length, (g, i) -> {
      g.writeStartObject();
      g.writeObjectFieldStart("metadata");
      g.writeStringField("name", classes[i][0]);
      g.writeEndObject();
      g.writeObjectFieldStart("spec");
      g.writeArrayFieldStart("selectors");
      g.writeStartObject();
      g.writeObjectFieldStart("cel");
      g.writeStringField("expression", "device.driver == \"nodeatlas.io\" && device.attributes[\"nodeatlas.io\"].type == \""
          + classes[i][1] + "\"");
      g.writeEndObject();
      g.writeEndObject();
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    });
    page(dir, "2-resourceslices", "ResourceSlice", nodes, (g, i) -> slice(g, i));
    page(dir, "3-resourceclaims", "ResourceClaim", nodes * 4, (g, i) -> claim(g, i / 4, i % 4));
  }

  static String node(int i) {
    return String.format("node-%05d", i);
  }

  interface Item {
    void write(JsonGenerator g, int i) throws IOException;
  }

  /** The items as list pages of {@link #PAGE}, named so that they sort in reading order. */
  static void page(Path dir, String name, String kind, int count, Item item) throws IOException {
    JsonFactory factory = JSON.getFactory();
    for (int from = 0, n = 0; from < count; from += PAGE, n++) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (JsonGenerator g = factory.createGenerator(bytes)) {
        g.writeStartObject();
        g.writeStringField("apiVersion", "v1");
        g.writeStringField("kind", "List");
        g.writeObjectFieldStart("metadata");
        // Not an API field: which kind the page lists, as the path of the list call says for the cluster reader.
        g.writeStringField("kind", kind);
        g.writeEndObject();
        g.writeArrayFieldStart("items");
        for (int i = from; i < Math.min(count, from + PAGE); i++) {
          item.write(g, i);
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      Files.write(dir.resolve(String.format("%s-%04d.page.json", name, n)), bytes.toByteArray());
    }
  }

  static void slice(JsonGenerator g, int node) throws IOException {
    g.writeStartObject();
    g.writeObjectFieldStart("metadata");
    g.writeStringField("name", node(node) + "-nodeatlas.io-0");
    g.writeEndObject();
    g.writeObjectFieldStart("spec");
    g.writeStringField("driver", "nodeatlas.io");
    g.writeStringField("nodeName", node(node));
    g.writeObjectFieldStart("pool");
    g.writeStringField("name", node(node));
    g.writeNumberField("generation", 1);
    g.writeNumberField("resourceSliceCount", 1);
    g.writeEndObject();
    g.writeArrayFieldStart("devices");
    for (int d = 0; d < 8; d++) {
      device(g, "gpu-" + d, "gpu", d / 4, false, new String[][] {{"productName", "NVIDIA H100 80GB HBM3"},
          {"uuid", "GPU-" + node + "-" + d}}, new String[][] {{"memory", "85520809984"}});
    }
    for (int d = 0; d < 4; d++) {
      device(g, "rdma-mlx5-" + d, "rdma", d / 2, false, new String[][] {{"transport", "roce"}, {"ifName", "eth" + d}},
          new String[][] {});
    }
    for (int d = 0; d < 2; d++) {
      device(g, "cpu-numa" + d, "cpu", d, true, new String[][] {{"architecture", "x86_64"}}, new String[][] {{"cpu", "64"}});
      device(g, "hugepages-2mi-numa" + d, "hugepages", d, true, new String[][] {{"pageSize", "2Mi"}},
          new String[][] {{"memory", "8589934592"}});
    }
    g.writeEndArray();
    g.writeEndObject();
    g.writeEndObject();
  }

  static void device(JsonGenerator g, String name, String type, int numa, boolean shared, String[][] strings,
      String[][] capacity) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name);
    g.writeObjectFieldStart("attributes");
    attribute(g, "nodeatlas.io/type", type);
    for (String[] s : strings) {
      attribute(g, "nodeatlas.io/" + s[0], s[1]);
    }
    g.writeObjectFieldStart("resource.kubernetes.io/numaNode");
    g.writeNumberField("int", numa);
    g.writeEndObject();
    g.writeEndObject();
    g.writeObjectFieldStart("capacity");
    for (String[] c : capacity) {
      g.writeObjectFieldStart("nodeatlas.io/" + c[0]);
      g.writeStringField("value", c[1]);
      if (shared) {
        g.writeObjectFieldStart("requestPolicy");
        g.writeStringField("default", "1");
        g.writeObjectFieldStart("validRange");
        g.writeStringField("min", "1");
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    g.writeEndObject();
    if (shared) {
      g.writeBooleanField("allowMultipleAllocations", true);
    }
    g.writeEndObject();
  }

  static void attribute(JsonGenerator g, String name, String value) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeStringField("string", value);
    g.writeEndObject();
  }

  /**
   * Claim {@code k} of a node: two GPUs (on odd nodes the two of NUMA node 0 that leave it one short), a
   * NIC, 48 CPUs of NUMA node 0, 4Gi of its hugepages; so about half the nodes fit the bench's claim.
   */
  static void claim(JsonGenerator g, int node, int k) throws IOException {
    g.writeStartObject();
    g.writeObjectFieldStart("metadata");
    g.writeStringField("name", node(node) + "-job-" + k);
    g.writeStringField("namespace", "default");
    g.writeEndObject();
    g.writeObjectFieldStart("status");
    g.writeObjectFieldStart("allocation");
    g.writeObjectFieldStart("devices");
    g.writeArrayFieldStart("results");
    switch (k) {
      case 0 -> {
        result(g, node, "gpu-" + (node % 2 == 0 ? 4 : 0), null, null);
        result(g, node, "gpu-" + (node % 2 == 0 ? 5 : 1), null, null);
        result(g, node, "gpu-2", null, null);
      }
      case 1 -> result(g, node, "rdma-mlx5-" + (node % 2 == 0 ? 3 : 1), null, null);
      case 2 -> result(g, node, "cpu-numa" + (node % 3 == 0 ? 0 : 1), "nodeatlas.io/cpu", "56");
      default -> result(g, node, "hugepages-2mi-numa0", "nodeatlas.io/memory", "4Gi");
    }
    g.writeEndArray();
    g.writeEndObject();
    g.writeEndObject();
    g.writeEndObject();
    g.writeEndObject();
  }

  static void result(JsonGenerator g, int node, String device, String capacity, String amount) throws IOException {
    g.writeStartObject();
    g.writeStringField("request", "r");
    g.writeStringField("driver", "nodeatlas.io");
    g.writeStringField("pool", node(node));
    g.writeStringField("device", device);
    if (capacity != null) {
      g.writeObjectFieldStart("consumedCapacity");
      g.writeStringField(capacity, amount);
      g.writeEndObject();
    }
    g.writeEndObject();
  }
}
