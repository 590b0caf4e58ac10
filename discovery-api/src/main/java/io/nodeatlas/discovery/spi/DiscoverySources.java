package io.nodeatlas.discovery.spi;

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
 * names, and {@code -name} to drop one ({@code all,-gpu}).
 */
public final class DiscoverySources {

  /** The sources this distribution is built with; selecting one that is not installed is a clear error. */
  public static final List<String> KNOWN_NAMES = List.of("cpu-numa", "gpu", "nic-rdma");

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
    for (String raw : spec.split(",")) {
      String item = raw.trim();
      if (item.isEmpty()) {
        continue;
      }
      boolean minus = item.startsWith("-");
      String name = minus ? item.substring(1) : item;
      if (name.equals("all")) {
        if (minus) {
          throw new IllegalArgumentException("'-all' selects nothing; list the sources to run instead");
        }
        chosen.addAll(byName.keySet());
        continue;
      }
      if (!byName.containsKey(name)) {
        if (KNOWN_NAMES.contains(name)) {
          throw new IllegalArgumentException("source '" + name + "' is not installed in this build; installed: " + validNames());
        }
        throw new IllegalArgumentException("unknown source '" + name + "'; valid sources: " + validNames());
      }
      (minus ? dropped : chosen).add(name);
    }
    chosen.removeAll(dropped);
    return chosen.stream().sorted().map(byName::get).toList();
  }

  private String validNames() {
    return "all, " + String.join(", ", byName.keySet());
  }
}
