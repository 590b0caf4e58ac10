package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.GidEntry;
import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.GidType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.BiConsumer;

/**
 * Builds a port's GID table from the text of {@code gids/<i>}, {@code gid_attrs/types/<i>} and
 * {@code gid_attrs/ndevs/<i>} ({@code Documentation/ABI/stable/sysfs-class-infiniband}). Empty entries
 * read as the zero GID and are dropped; an entry whose text is malformed costs that entry (or that
 * attribute of it) and one problem, never the table.
 */
public final class GidTableParser {

  private GidTableParser() {}

  /**
   * @param gids index → {@code gids/<i>} text, for every index of the table
   * @param types index → {@code gid_attrs/types/<i>} text, where it could be read
   * @param ndevs index → {@code gid_attrs/ndevs/<i>} text, where it could be read
   * @param problems the file (relative to the port, {@code gids/4}) and what is wrong with it
   */
  public static GidTable parse(SortedMap<Integer, String> gids, Map<Integer, String> types, Map<Integer, String> ndevs,
      BiConsumer<String, String> problems) {
    List<GidEntry> populated = new ArrayList<>();
    for (Map.Entry<Integer, String> e : gids.entrySet()) {
      int index = e.getKey();
      String gid;
      try {
        gid = GidParser.parse(e.getValue());
      } catch (IllegalArgumentException ex) {
        problems.accept("gids/" + index, ex.getMessage());
        continue;
      }
      if (GidParser.isZero(gid)) {
        continue;
      }
      Optional<GidType> type = Optional.empty();
      String typeText = types.get(index);
      if (typeText != null && !typeText.isEmpty()) {
        try {
          type = Optional.of(parseType(typeText));
        } catch (IllegalArgumentException ex) {
          problems.accept("gid_attrs/types/" + index, ex.getMessage());
        }
      }
      Optional<String> ndev = Optional.empty();
      String ndevText = ndevs.get(index);
      if (ndevText != null && !ndevText.isEmpty()) {
        try {
          ndev = Optional.of(ndev(ndevText));
        } catch (IllegalArgumentException ex) {
          problems.accept("gid_attrs/ndevs/" + index, ex.getMessage());
        }
      }
      populated.add(new GidEntry(index, gid, type, ndev));
    }
    return new GidTable(gids.size(), populated);
  }

  /** The text of {@code gid_attrs/ndevs/<i>}: an interface name. */
  public static String ndev(String text) {
    return InterfaceNames.parse(text);
  }

  public static GidType parseType(String text) {
    for (GidType t : GidType.values()) {
      if (t.sysfsText().equals(text)) {
        return t;
      }
    }
    throw Expected.but("\"IB/RoCE v1\" or \"RoCE v2\"", text);
  }
}
