package io.nodeatlas.cli.fleet;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.host.Excerpt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/**
 * Where the fleet commands read nodes from: saved files and directories ({@code --discovered}) and the live
 * cluster ({@code --cluster}, through the kubeconfig or in-cluster credentials), read-only.
 */
public final class FleetOptions {

  /** Items per list call ({@code limit}). */
  static final int PAGE_LIMIT = 500;
  /** Largest answer to one list call: 500 slices of 128 devices with 32 attributes each stay below it. */
  static final long MAX_PAGE_BYTES = 64L * 1024 * 1024;
  /** Items of one kind: 20 times the 5,000-node fleet of the scale goal. */
  static final int MAX_ITEMS = 200_000;
  /** Files one directory may hold. */
  static final int MAX_FILES_PER_DIRECTORY = 100_000;

  @Option(names = "--discovered", paramLabel = "FILE.json|DIR", arity = "1..*",
      description = "Saved `nodeatlas discover -o json` documents (one node each), `slices -o json` lists or "
          + "`kubectl get ... -o json` lists of ResourceSlices, ResourceClaims, DeviceClasses and Nodes; a "
          + "directory stands for its *.json files. More than one node gives one verdict per node.")
  public List<Path> discovered = new ArrayList<>();

  @Option(names = "--cluster", description = "Read every ResourceSlice, DeviceClass, allocated ResourceClaim "
      + "and Node of the cluster (list calls, read-only) and answer for every node.")
  public boolean cluster;

  @Option(names = "--kubeconfig", paramLabel = "FILE",
      description = "Kubeconfig for --cluster (default: $KUBECONFIG, ~/.kube/config, or in-cluster credentials).")
  public Path kubeconfig;

  @Option(names = "--timeout-seconds", paramLabel = "SECONDS", defaultValue = "${env:NODEATLAS_TIMEOUT_SECONDS:-60}",
      description = "Time for all of --cluster's list calls together (default: 60; env NODEATLAS_TIMEOUT_SECONDS).")
  public int timeoutSeconds;

  /** Whether any fleet source was named. */
  public boolean any() {
    return cluster || !discovered.isEmpty();
  }

  /** Reads every named source. */
  public FleetInput read() {
    FleetInput input = new FleetInput();
    for (Path p : discovered) {
      if (Files.isDirectory(p)) {
        for (Path f : jsonFiles(p)) {
          input.addFile("--discovered", f);
        }
      } else {
        input.addFile("--discovered", p);
      }
    }
    if (cluster) {
      readCluster(input);
    }
    return input;
  }

  private static List<Path> jsonFiles(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> out = files.filter(f -> f.getFileName().toString().endsWith(".json") && Files.isRegularFile(f))
          .limit(MAX_FILES_PER_DIRECTORY + 1L).sorted().toList();
      if (out.size() > MAX_FILES_PER_DIRECTORY) {
        throw new UsageException("--discovered " + dir + ": more than " + MAX_FILES_PER_DIRECTORY + " files");
      }
      if (out.isEmpty()) {
        throw new UsageException("--discovered " + dir + ": no *.json files");
      }
      return out;
    } catch (IOException e) {
      throw new UsageException("--discovered " + dir + ": cannot list: " + Excerpt.scrub(String.valueOf(e.getMessage())), e);
    }
  }

  private void readCluster(FleetInput input) {
    if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
      throw new UsageException("--timeout-seconds (env NODEATLAS_TIMEOUT_SECONDS) must be 1 to 3600 seconds, not "
          + timeoutSeconds);
    }
    Config cfg;
    try {
      if (kubeconfig != null) {
        if (!Files.isRegularFile(kubeconfig)) {
          throw new UsageException("--kubeconfig " + kubeconfig + ": no such file");
        }
        cfg = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
      } else {
        cfg = Config.autoConfigure(null);
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof UsageException u) {
        throw u;
      }
      throw new UsageException("--cluster: cannot read the kubeconfig: " + Excerpt.scrub(String.valueOf(e.getMessage())), e);
    }
    cfg.setConnectionTimeout(5_000);
    cfg.setRequestRetryBackoffLimit(0);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(cfg)
        .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
      read(input, new ClusterReader(client.getHttpClient(), cfg.getMasterUrl(), PAGE_LIMIT, MAX_PAGE_BYTES, MAX_ITEMS,
          timeoutSeconds * 1000L));
    }
  }

  /** The list calls of {@code --cluster} (path, kind of its items); the RBAC in docs/fleet.md grants exactly these. */
  public static final java.util.Map<String, String> LIST_CALLS = listCalls();

  private static java.util.Map<String, String> listCalls() {
    java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("/api/v1/nodes", "Node");
    m.put("/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass");
    m.put("/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice");
    m.put("/apis/resource.k8s.io/v1/resourceclaims", "ResourceClaim");
    return java.util.Collections.unmodifiableMap(m);
  }

  static void read(FleetInput input, ClusterReader reader) {
    try {
      for (java.util.Map.Entry<String, String> call : LIST_CALLS.entrySet()) {
        reader.list(call.getKey(), item -> input.addObject(item, call.getValue(), "the cluster"));
      }
    } catch (ClusterReader.ApiException e) {
      throw new FleetReadException("--cluster: " + e.getMessage());
    }
  }

  /** The cluster could not be read (exit status 1, one line). */
  public static final class FleetReadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FleetReadException(String message) {
      super(message, null, false, false);
    }
  }
}
