package io.nodeatlas.agent.shares;

import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The claim-time side of every installed device family ({@link DiscoverySource#sharePlacer},
 * {@link DiscoverySource#networkData}), by source name: a device's family is the source that
 * published it ({@link Device#source()}).
 */
public final class Families {

  private final Map<String, SharePlacer> bySource;
  private final Map<String, DiscoverySource> sources;
  /** The families that make devices real at Prepare ({@link DeviceRealiser}), by source name. */
  private final TreeMap<String, DeviceRealiser> realisers;

  public Families(Map<String, SharePlacer> bySource, Map<String, DiscoverySource> sources) {
    this(bySource, sources, Map.of());
  }

  private Families(Map<String, SharePlacer> bySource, Map<String, DiscoverySource> sources,
      Map<String, DeviceRealiser> realisers) {
    this.bySource = Map.copyOf(new TreeMap<>(bySource));
    this.sources = Map.copyOf(sources);
    this.realisers = new TreeMap<>(realisers);
  }

  /** These families with {@code realisers} (by source name) making their devices real at Prepare. */
  public Families withRealisers(Map<String, DeviceRealiser> byName) {
    return new Families(bySource, sources, byName);
  }

  /** The family that makes {@code device} real at Prepare, if any. */
  public Optional<DeviceRealiser> realiser(Device device) {
    DeviceRealiser r = realisers.get(device.source());
    return r != null && r.realises(device) ? Optional.of(r) : Optional.empty();
  }

  /** Every family that makes devices real, in source-name order. */
  public List<DeviceRealiser> realisers() {
    return List.copyOf(realisers.values());
  }

  /** The placers of the sources found on {@code loader}'s class path, their edits pointing at {@code settings}. */
  public static Families installed(ClassLoader loader, SharePlacer.Settings settings) {
    Map<String, SharePlacer> out = new TreeMap<>();
    Map<String, DiscoverySource> sources = new TreeMap<>();
    for (DiscoverySource s : DiscoverySources.load(loader).all()) {
      s.sharePlacer(settings).ifPresent(p -> out.put(s.name(), p));
      sources.put(s.name(), s);
    }
    return new Families(out, sources);
  }

  /** The network interface its family states for {@code device} (KEP-4817); empty when none. */
  public Optional<io.nodeatlas.discovery.share.NetworkData> networkData(Device device) {
    DiscoverySource s = sources.get(device.source());
    return s == null ? Optional.empty() : s.networkData(device);
  }

  /** The device with its family's view of it, on a node of {@code topology}. */
  public SharedDevice shared(Device device, Topology topology) {
    SharePlacer p = bySource.get(device.source());
    return new SharedDevice(device, p == null || !device.allowMultipleAllocations() ? Optional.empty()
        : p.forDevice(device, topology));
  }

  /** The claim's devices after each family of them has made its edits, in source-name order. */
  public List<Device> containerEdits(List<ClaimDevice> claim) {
    TreeMap<String, SharePlacer> present = new TreeMap<>();
    for (ClaimDevice c : claim) {
      SharePlacer p = bySource.get(c.device().source());
      if (p != null) {
        present.put(c.device().source(), p);
      }
    }
    List<ClaimDevice> current = claim;
    for (SharePlacer p : present.values()) {
      List<Device> edited = p.containerEdits(current);
      if (edited.size() != current.size()) {
        throw new IllegalStateException("a family's container edits returned " + edited.size() + " devices for " + current.size());
      }
      List<ClaimDevice> next = new java.util.ArrayList<>();
      for (int i = 0; i < edited.size(); i++) {
        next.add(new ClaimDevice(edited.get(i), current.get(i).share()));
      }
      current = next;
    }
    return current.stream().map(ClaimDevice::device).toList();
  }
}
