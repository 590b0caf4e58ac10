package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;

/**
 * The {@code --reserved-cpus} value: a CPU list in the syntax of the kubelet's
 * {@code reservedSystemCPUs} ({@code KubeletConfiguration}, parsed by {@code k8s.io/utils/cpuset.Parse}):
 * comma-separated ids and inclusive ranges, {@code 0-1,64-65}; empty means none. Spaces around items are
 * allowed, as in a hand-written config file.
 */
public final class ReservedCpus {

  /** Far more than any written list; keeps a hostile value from costing more than a glance. */
  static final int MAX_LENGTH = 16 * 1024;

  private ReservedCpus() {}

  /** The set, or IllegalArgumentException saying why the text is not a CPU list. */
  public static CpuSet parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("no CPU list");
    }
    if (text.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("CPU list longer than " + MAX_LENGTH + " characters");
    }
    StringBuilder compact = new StringBuilder(text.length());
    for (String item : text.split(",", -1)) {
      String t = item.strip();
      if (t.isEmpty() && !text.isBlank()) {
        throw new IllegalArgumentException("not a CPU list (like 0-1,64-65): " + Excerpt.of(text) + ", an empty item");
      }
      if (compact.length() > 0) {
        compact.append(',');
      }
      compact.append(t);
    }
    try {
      return CpuListParser.parse(compact.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a CPU list (like 0-1,64-65): " + Excerpt.of(text), e);
    }
  }
}
