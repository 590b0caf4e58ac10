package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.net.model.GidEntry;
import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.LinkLayer;
import io.nodeatlas.discovery.net.model.NumberedState;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.parse.GidParser;
import io.nodeatlas.discovery.net.parse.GidTableParser;
import io.nodeatlas.discovery.net.parse.LinkLayerParser;
import io.nodeatlas.discovery.net.parse.NumberedStateParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.RateParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code /sys/class/infiniband/<ibdev>/ports/<n>/} ({@code Documentation/ABI/stable/sysfs-class-infiniband}).
 * The GID table is read in full (its length is device-specific, never assumed); {@code gid_attrs} are
 * read only for populated entries, since the kernel fails those reads with EINVAL for empty ones anyway.
 * The LID is read only on InfiniBand ports: LIDs are InfiniBand subnet addresses, and on RoCE and
 * iWARP ports the file only says {@code 0x0} (one read less per VF).
 */
public final class PortReader {

  /** IB LIDs are 16 bits. */
  private static final long MAX_LID = 0xffff;

  private final FactReader facts;

  public PortReader(FactReader facts) {
    this.facts = facts;
  }

  public RdmaPort read(Path portDir, int number) {
    return read(portDir, number, true);
  }

  /**
   * @param complete whether to read {@code phys_state} and the GIDs' {@code gid_attrs/ndevs}: only an
   *     RDMA device published as a device of its own carries what they feed ({@code physState}, and the
   *     netdev its port maps to); a VF's is published inside the VF's device, whose netdev is the VF's own
   */
  public RdmaPort read(Path portDir, int number, boolean complete) {
    Optional<LinkLayer> linkLayer = facts.read(portDir.resolve("link_layer"), LinkLayerParser::parse);
    OptionalInt lid = OptionalInt.empty();
    if (linkLayer.orElse(LinkLayer.UNKNOWN) == LinkLayer.INFINIBAND) {
      lid = facts.read(portDir.resolve("lid"), t -> (int) Numbers.parseHex(t, MAX_LID))
          .map(OptionalInt::of).orElse(OptionalInt.empty());
    }
    return new RdmaPort(
        number,
        facts.read(portDir.resolve("state"), NumberedStateParser::parse),
        complete ? physState(portDir) : Optional.empty(),
        linkLayer,
        facts.read(portDir.resolve("rate"), RateParser::parse),
        lid,
        gidTable(portDir, complete));
  }

  /** The port with what {@link #read} leaves out when not {@code complete} read after all. */
  public RdmaPort complete(Path portDir, RdmaPort port) {
    List<GidEntry> populated = new ArrayList<>();
    for (GidEntry e : port.gids().populated()) {
      String file = "gid_attrs/ndevs/" + e.index();
      Optional<String> ndev = facts.readIfApplicable(portDir.resolve(file), t -> t).flatMap(text -> {
        try {
          return Optional.of(GidTableParser.ndev(text));
        } catch (IllegalArgumentException ex) {
          facts.warn(portDir.resolve(file), "not understood: " + ex.getMessage());
          return Optional.empty();
        }
      });
      populated.add(new GidEntry(e.index(), e.gid(), e.type(), ndev));
    }
    return new RdmaPort(port.number(), port.state(), physState(portDir), port.linkLayer(), port.rate(), port.lid(),
        new GidTable(port.gids().size(), populated));
  }

  private Optional<NumberedState> physState(Path portDir) {
    return facts.read(portDir.resolve("phys_state"), NumberedStateParser::parse);
  }

  private GidTable gidTable(Path portDir, boolean withNdevs) {
    SortedMap<Integer, String> gids = new TreeMap<>();
    Path gidDir = portDir.resolve("gids");
    // Names, not a Path per entry: a port lists its whole table (16 to 256 entries), most of them empty.
    for (String name : facts.names(gidDir)) {
      int index;
      try {
        index = Numbers.parseInt(name, 0, 1 << 16);
      } catch (IllegalArgumentException e) {
        continue;
      }
      facts.value(gidDir.resolve(name)).filter(t -> !t.isEmpty()).ifPresent(text -> gids.put(index, text));
    }
    Map<Integer, String> types = new HashMap<>();
    Map<Integer, String> ndevs = new HashMap<>();
    Path typeDir = null;
    Path ndevDir = null;
    for (Map.Entry<Integer, String> e : gids.entrySet()) {
      if (e.getValue().equalsIgnoreCase(GidParser.ZERO)) {
        continue;
      }
      if (typeDir == null) {
        typeDir = portDir.resolve("gid_attrs/types");
        ndevDir = portDir.resolve("gid_attrs/ndevs");
      }
      int i = e.getKey();
      String file = Integer.toString(i);
      facts.readIfApplicable(typeDir.resolve(file), t -> t).ifPresent(t -> types.put(i, t));
      if (withNdevs) {
        facts.readIfApplicable(ndevDir.resolve(file), t -> t).ifPresent(t -> ndevs.put(i, t));
      }
    }
    return GidTableParser.parse(gids, types, ndevs,
        (file, problem) -> facts.warn(portDir.resolve(file), "not understood: " + problem));
  }
}
