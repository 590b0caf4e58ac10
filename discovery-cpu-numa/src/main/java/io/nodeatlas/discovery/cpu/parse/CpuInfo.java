package io.nodeatlas.discovery.cpu.parse;

import java.util.Map;

/**
 * {@code /proc/cpuinfo} as fields: per logical CPU (the blocks that carry a {@code processor} or
 * {@code cpu number}), and the fields of the blocks that name no CPU (ARM's trailing block with
 * {@code CPU implementer} on old kernels, s390's header, POWER's {@code platform}), which hold for
 * every CPU. Keys are the kernel's spelling, trimmed ({@code model name}, {@code CPU implementer}).
 *
 * @param processors fields of each CPU by its number, unmodifiable
 * @param shared fields that name no CPU, unmodifiable
 */
public record CpuInfo(Map<Integer, Map<String, String>> processors, Map<String, String> shared) {

  public static final CpuInfo EMPTY = new CpuInfo(Map.of(), Map.of());

  public CpuInfo {
    processors = Map.copyOf(processors);
    shared = Map.copyOf(shared);
  }

  /** The fields that describe {@code cpu}: its own, then the shared ones for keys it lacks. */
  public Map<String, String> fieldsOf(int cpu) {
    Map<String, String> own = processors.get(cpu);
    if (own == null) {
      return shared;
    }
    if (shared.isEmpty()) {
      return own;
    }
    java.util.HashMap<String, String> all = new java.util.HashMap<>(shared);
    all.putAll(own);
    return all;
  }

  /** The one field {@code key} of {@code cpu} as {@link #fieldsOf} has it, without building that map. */
  public String field(int cpu, String key) {
    Map<String, String> own = processors.get(cpu);
    String value = own == null ? null : own.get(key);
    return value != null ? value : shared.get(key);
  }

  public boolean isEmpty() {
    return processors.isEmpty() && shared.isEmpty();
  }
}
