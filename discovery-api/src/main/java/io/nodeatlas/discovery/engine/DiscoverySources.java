package io.nodeatlas.discovery.engine;

import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.spi.DiscoverySource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * The registry of installed discovery sources. Names are unique (a duplicate is a packaging bug and
 * fails fast, as in NFD's registry) and users select with NFD's syntax: {@code all}, a comma list of
 * names, and {@code -name} to drop one ({@code all,-gpu}). A selection of only {@code -name} items
 * starts from all ({@code -gpu} is "all but gpu"), as NFD's {@code -label-sources} does.
 */
public final class DiscoverySources {

  private final Map<String, DiscoverySource> byName;

  private DiscoverySources(Map<String, DiscoverySource> byName) {
    this.byName = Collections.unmodifiableMap(byName);
  }

  /** Loads every {@link DiscoverySource} visible to {@code loader}. */
  public static DiscoverySources load(ClassLoader loader) {
    List<DiscoverySource> found = new ArrayList<>();
    ServiceLoader.load(DiscoverySource.class, loader).forEach(found::add);
    return of(found);
  }

  public static DiscoverySources of(Collection<? extends DiscoverySource> sources) {
    Map<String, DiscoverySource> byName = new TreeMap<>();
    for (DiscoverySource s : sources) {
      DiscoverySource previous = byName.putIfAbsent(s.name(), s);
      if (previous != null) {
        throw new IllegalStateException(
            "two discovery sources are named \"" + s.name() + "\": " + previous.getClass().getName()
                + " and " + s.getClass().getName());
      }
    }
    return new DiscoverySources(byName);
  }

  /** Installed source names, sorted. */
  public Set<String> names() {
    return byName.keySet();
  }

  /** Installed sources in name order. */
  public List<DiscoverySource> all() {
    return List.copyOf(byName.values());
  }

  /** Every setting of every installed source, in source then declaration order. */
  public List<SourceSetting> settings() {
    List<SourceSetting> out = new ArrayList<>();
    for (DiscoverySource s : byName.values()) {
      for (SourceSetting setting : s.settings()) {
        if (!setting.source().equals(s.name())) {
          throw new IllegalStateException("source " + s.name() + " declares setting " + setting.key() + " of another source");
        }
        out.add(setting);
      }
    }
    return out;
  }

  /**
   * Resolves a selection such as {@code all,-gpu} or {@code cpu-numa,nic-rdma} into sources in name
   * order. Unknown names are an {@link IllegalArgumentException} that lists the valid ones.
   */
  public List<DiscoverySource> select(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("--sources is empty; use 'all' or a list of " + validNames());
    }
    Set<String> chosen = new LinkedHashSet<>();
    Set<String> dropped = new LinkedHashSet<>();
    boolean anyPositive = false;
    for (String raw : spec.split(",")) {
      String item = raw.trim();
      if (item.isEmpty()) {
        continue;
      }
      boolean minus = item.startsWith("-");
      String name = minus ? item.substring(1).trim() : item;
      anyPositive |= !minus;
      if (name.equals("all")) {
        if (minus) {
          throw new IllegalArgumentException("'-all' selects nothing; list the sources to run instead");
        }
        chosen.addAll(byName.keySet());
        continue;
      }
      if (!byName.containsKey(name)) {
        throw new IllegalArgumentException("unknown source '" + io.nodeatlas.discovery.host.Excerpt.scrub(name)
            + "'; installed sources: " + validNames());
      }
      (minus ? dropped : chosen).add(name);
    }
    if (!anyPositive) {
      chosen.addAll(byName.keySet());
    }
    chosen.removeAll(dropped);
    return chosen.stream().sorted().map(byName::get).toList();
  }

  private String validNames() {
    return "all, " + String.join(", ", byName.keySet());
  }
}
