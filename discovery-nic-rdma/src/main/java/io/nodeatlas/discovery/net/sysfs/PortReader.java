package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.parse.GidParser;
import io.nodeatlas.discovery.net.parse.GidTableParser;
import io.nodeatlas.discovery.net.parse.LinkLayerParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.NumberedStateParser;
import io.nodeatlas.discovery.net.parse.RateParser;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@code /sys/class/infiniband/<ibdev>/ports/<n>/} (§1.2). The GID table is read in full (its length
 * is device-specific, never assumed); {@code gid_attrs} are read only for populated entries, since
 * the kernel fails those reads with EINVAL for empty ones anyway.
 */
public final class PortReader {

  /** IB LIDs are 16 bits. */
  private static final long MAX_LID = 0xffff;

  private final HostFs fs;

  public PortReader(HostFs fs) {
    this.fs = fs;
  }

  public RdmaPort read(Path portDir, String ibdev, int number, Consumer<String> warn) {
    SysfsAttributes a = new SysfsAttributes(fs, portDir, "RDMA device " + ibdev + " port " + number, warn);
    return new RdmaPort(
        number,
        a.read("state", t -> NumberedStateParser.parse("state", t)),
        a.read("phys_state", t -> NumberedStateParser.parse("phys_state", t)),
        a.read("link_layer", LinkLayerParser::parse),
        a.read("rate", RateParser::parse),
        optionalInt(a.read("lid", t -> (int) Numbers.parseHex("lid", t, MAX_LID))),
        gidTable(a));
  }

  private GidTable gidTable(SysfsAttributes a) {
    Path gidsDir = a.dir().resolve("gids");
    SortedMap<Integer, String> gids = new TreeMap<>();
    try {
      for (Path entry : fs.list(gidsDir)) {
        String name = entry.getFileName().toString();
        int index;
        try {
          index = Numbers.parseInt("GID index", name, 0, 1 << 16);
        } catch (RuntimeException e) {
          continue;
        }
        a.text("gids/" + name).ifPresent(text -> gids.put(index, text));
      }
    } catch (HostFileException e) {
      a.warn("GID table left out: " + e.getMessage());
      return GidTable.EMPTY;
    }
    Map<Integer, String> types = new HashMap<>();
    Map<Integer, String> ndevs = new HashMap<>();
    for (Map.Entry<Integer, String> e : gids.entrySet()) {
      if (e.getValue().equalsIgnoreCase(GidParser.ZERO)) {
        continue;
      }
      int i = e.getKey();
      a.textMayFail("gid_attrs/types/" + i).ifPresent(t -> types.put(i, t));
      a.textMayFail("gid_attrs/ndevs/" + i).ifPresent(t -> ndevs.put(i, t));
    }
    return GidTableParser.parse(gids, types, ndevs, problem -> a.warn(problem));
  }

  private static OptionalInt optionalInt(Optional<Integer> value) {
    return value.map(OptionalInt::of).orElse(OptionalInt.empty());
  }
}
