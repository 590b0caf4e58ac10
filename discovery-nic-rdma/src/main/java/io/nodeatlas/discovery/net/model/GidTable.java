package io.nodeatlas.discovery.net.model;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A port's GID table: its length (every index has a {@code gids/<i>} file) and the entries that are
 * not the all-zero GID, ordered by index. Empty entries read as zero, never as errors.
 */
public record GidTable(int size, List<GidEntry> populated) {

  public static final GidTable EMPTY = new GidTable(0, List.of());

  public GidTable {
    populated = List.copyOf(populated);
  }

  /** The GID at index 0 when populated: subnet prefix plus port GUID on InfiniBand. */
  public Optional<String> portGid() {
    return populated.isEmpty() || populated.get(0).index() != 0 ? Optional.empty() : Optional.of(populated.get(0).gid());
  }

  public Set<GidType> types() {
    Set<GidType> types = EnumSet.noneOf(GidType.class);
    populated.forEach(e -> e.type().ifPresent(types::add));
    return types;
  }

  /** The netdevs named by {@code gid_attrs/ndevs}, first appearance first (the owner is at index 0). */
  public List<String> ndevs() {
    List<String> names = new ArrayList<>();
    for (GidEntry e : populated) {
      e.ndev().filter(n -> !names.contains(n)).ifPresent(names::add);
    }
    return names;
  }
}
