package io.nodeatlas.discovery.engine;

import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciTreeBuilder;
import io.nodeatlas.discovery.pci.PciTreeReader;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Runs the selected sources, at once where there are processors for it, each behind a guard: a source
 * that throws is recorded as failed with its reason and the others still run; results are merged in
 * the order the sources were given, whichever finished first. The merged result is a {@link NodeReport}.
 */
public final class NodeDiscovery {

  private NodeDiscovery() {}

  /** Runs the sources, then reads the PCI tree and relates the published PCI devices in it. */
  public static NodeReport run(List<DiscoverySource> sources, HostContext host) {
    return run(sources, host, true);
  }

  /**
   * Runs the sources; with {@code pciTree}, then reads {@code /sys/devices/pci*} into the topology's
   * {@link PciTree}, with every published device on its function (the one its
   * {@code resource.kubernetes.io/pciBusID} names) and the pairs of published devices. Without, the
   * topology has no PCI tree (what the benchmark of the tree's cost compares against).
   */
  public static NodeReport run(List<DiscoverySource> sources, HostContext host, boolean pciTree) {
    // A run resolves the host's directories afresh (hotplug moves links between runs) and, once done,
    // keeps neither their memo nor directory handles while the agent waits for the next one.
    host.fs().forgetResolvedDirectories();
    try {
      return runSources(sources, host, pciTree);
    } finally {
      host.fs().forgetResolvedDirectories();
    }
  }

  private static NodeReport runSources(List<DiscoverySource> sources, HostContext host, boolean pciTree) {
    List<Device> devices = new ArrayList<>();
    List<DiscoveryWarning> warnings = new ArrayList<>();
    Map<String, SourceStatus> statuses = new TreeMap<>();
    Map<String, String> deviceOwners = new HashMap<>();
    Topology topology = null;

    // Sources read different files (and the gpu source waits on its driver), so they run at once, one
    // thread each up to the processors there are; their results are merged below in the given order,
    // so the report does not depend on which finished first. One source runs on the calling thread.
    List<Outcome> outcomes = outcomes(sources, host);
    for (int i = 0; i < sources.size(); i++) {
      String name = sources.get(i).name();
      Outcome outcome = outcomes.get(i);
      if (outcome.unavailable() != null) {
        statuses.put(name, SourceStatus.unavailable(outcome.unavailable()));
        warnings.add(new DiscoveryWarning(name, "source unavailable: " + outcome.unavailable()));
        continue;
      }
      if (outcome.failure() != null) {
        statuses.put(name, SourceStatus.failed(outcome.failure()));
        warnings.add(new DiscoveryWarning(name, "source failed: " + outcome.failure()));
        continue;
      }
      DiscoveryResult result = outcome.result();
      statuses.put(name, SourceStatus.OK);
      warnings.addAll(result.warnings());
      for (Device d : result.devices()) {
        String owner = deviceOwners.putIfAbsent(d.name(), name);
        if (owner != null) {
          warnings.add(new DiscoveryWarning(name,
              "device " + d.name() + " left out: source " + owner + " already published a device of that name"));
        } else {
          devices.add(d);
        }
      }
      if (result.topology().isPresent()) {
        if (topology == null) {
          topology = result.topology().get();
        } else {
          warnings.add(new DiscoveryWarning(name, "topology ignored: another source already described it"));
        }
      }
    }
    Topology merged = topology == null ? Topology.EMPTY : topology;
    if (pciTree) {
      merged = merged.withPci(pciTree(host, devices, warnings));
    }
    return new NodeReport(
        NodeReport.SCHEMA_VERSION,
        hostInfo(host.fs(), warnings),
        merged,
        devices,
        warnings,
        statuses);
  }

  /** The source name of warnings about the PCI tree. */
  static final String PCI_TREE = "pci";

  /**
   * The PCI tree with the published devices on their functions. A device names its function by the
   * standard {@code resource.kubernetes.io/pciBusID}, which every source publishes through
   * {@link io.nodeatlas.discovery.pci.PciFunctionFacts#publishTo}; functions in PCI domains of more than
   * four hex digits (VMD) have no {@code pciBusID} and their devices are not placed. A node without
   * {@code /sys/devices/pci*} has an empty tree and no warning.
   */
  static PciTree pciTree(HostContext host, List<Device> devices, List<DiscoveryWarning> warnings) {
    FactReader facts = new FactReader(host.fs(), m -> warnings.add(new DiscoveryWarning(PCI_TREE, m)));
    List<PciTreeBuilder.RawNode> read = new PciTreeReader(facts).read();
    if (read.isEmpty()) {
      return PciTree.EMPTY;
    }
    Map<String, PciAddress> functions = new HashMap<>();
    for (Device d : devices) {
      d.attribute(Names.PCI_BUS_ID)
          .filter(v -> v instanceof AttributeValue.StringValue)
          .flatMap(v -> PciAddress.tryParse(((AttributeValue.StringValue) v).value()))
          .ifPresent(a -> functions.put(d.name(), a));
    }
    return PciTreeBuilder.build(read, functions, m -> warnings.add(new DiscoveryWarning(PCI_TREE, m)));
  }

  /** Hostname and kernel release from procfs ({@code /proc/sys/kernel/{hostname,osrelease}}), never from the JVM. */
  static HostInfo hostInfo(HostFs fs, List<DiscoveryWarning> warnings) {
    return new HostInfo(
        readQuietly(fs, fs.proc("sys/kernel/hostname"), warnings)
            .or(() -> readQuietly(fs, fs.host("etc/hostname"), warnings))
            .orElse(null),
        readQuietly(fs, fs.proc("sys/kernel/osrelease"), warnings).orElse(null),
        fs.hostRoot().toString());
  }

  private static Optional<String> readQuietly(HostFs fs, java.nio.file.Path p, List<DiscoveryWarning> warnings) {
    try {
      return fs.readValue(p).filter(s -> !s.isEmpty());
    } catch (HostFileException e) {
      warnings.add(new DiscoveryWarning("host", e.getMessage()));
      return Optional.empty();
    }
  }

  /** What one source gave: a result, or why it is unavailable, or why it failed. */
  private record Outcome(DiscoveryResult result, String unavailable, String failure) {}

  private static Outcome outcome(DiscoverySource source, HostContext host) {
    try {
      Availability availability = source.availability(host);
      if (!availability.available()) {
        return new Outcome(null, availability.reason(), null);
      }
      return new Outcome(source.discover(host), null, null);
    } catch (DiscoveryException e) {
      return new Outcome(null, null, e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      // A bug or a broken native library in one source must not take the other sources down.
      return new Outcome(null, null, e.toString());
    }
  }

  /** Each source's outcome, in the order of {@code sources}; see {@link #run(List, HostContext, boolean)}. */
  private static List<Outcome> outcomes(List<DiscoverySource> sources, HostContext host) {
    int threads = Math.min(sources.size(), Runtime.getRuntime().availableProcessors());
    if (threads <= 1) {
      List<Outcome> out = new ArrayList<>();
      for (DiscoverySource source : sources) {
        out.add(outcome(source, host));
      }
      return out;
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, task -> {
      Thread t = new Thread(task, "nodeatlas-discovery");
      t.setDaemon(true);
      return t;
    });
    try {
      List<java.util.concurrent.Future<Outcome>> futures = new ArrayList<>();
      for (DiscoverySource source : sources) {
        futures.add(pool.submit(() -> outcome(source, host)));
      }
      List<Outcome> out = new ArrayList<>();
      for (java.util.concurrent.Future<Outcome> f : futures) {
        out.add(await(f));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** A source's outcome; an Error it threw (out of memory) is rethrown here as it would have been inline. */
  private static Outcome await(java.util.concurrent.Future<Outcome> future) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true; // a discovery is not abandoned halfway; the interrupt is kept for the caller
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
