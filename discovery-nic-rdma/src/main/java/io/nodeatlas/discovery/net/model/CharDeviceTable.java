package io.nodeatlas.discovery.net.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Char devices keyed by what their {@code ibdev} and {@code port} files say, never by their number:
 * uverbsN, umadN and issmN are numbered independently.
 */
public record CharDeviceTable(
    Map<String, CharDevice> uverbsByIbdev,
    Map<String, SortedMap<Integer, CharDevice>> umadByIbdev,
    Map<String, SortedMap<Integer, CharDevice>> issmByIbdev,
    Optional<CharDevice> rdmaCm) {

  public CharDeviceTable {
    uverbsByIbdev = Collections.unmodifiableMap(new TreeMap<>(uverbsByIbdev));
    umadByIbdev = copy(umadByIbdev);
    issmByIbdev = copy(issmByIbdev);
  }

  private static Map<String, SortedMap<Integer, CharDevice>> copy(Map<String, SortedMap<Integer, CharDevice>> in) {
    Map<String, SortedMap<Integer, CharDevice>> out = new TreeMap<>();
    in.forEach((k, v) -> out.put(k, Collections.unmodifiableSortedMap(new TreeMap<>(v))));
    return Collections.unmodifiableMap(out);
  }

  public Optional<CharDevice> uverbs(String ibdev) {
    return Optional.ofNullable(uverbsByIbdev.get(ibdev));
  }

  public Optional<CharDevice> umad(String ibdev, int port) {
    return Optional.ofNullable(umadByIbdev.getOrDefault(ibdev, Collections.emptySortedMap()).get(port));
  }

  public Optional<CharDevice> issm(String ibdev, int port) {
    return Optional.ofNullable(issmByIbdev.getOrDefault(ibdev, Collections.emptySortedMap()).get(port));
  }

  /** Every device in a stable order: uverbs, umad, issm by name, then rdma_cm. */
  public List<CharDevice> all() {
    List<CharDevice> all = new java.util.ArrayList<>(uverbsByIbdev.values());
    umadByIbdev.values().forEach(m -> all.addAll(m.values()));
    issmByIbdev.values().forEach(m -> all.addAll(m.values()));
    rdmaCm.ifPresent(all::add);
    return List.copyOf(all);
  }
}
