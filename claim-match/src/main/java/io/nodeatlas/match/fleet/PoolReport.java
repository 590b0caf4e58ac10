package io.nodeatlas.match.fleet;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What is taken and what is left in each pool of each driver ({@code nodeatlas pools}): devices in total,
 * allocated and free, and per capacity what the allocated claims consume (the whole capacity of an
 * exclusive device, the {@code consumedCapacity} of a shared one, KEP-5075) and what is left; per shared
 * counter (KEP-4815) what the allocated devices consume of it; where nothing is left, the claims that took
 * it. The capacities of devices that consume counters are not added up (they overlap: the counters say
 * what is left). Only the slices of a pool's newest generation count, as for the scheduler.
 */
public record PoolReport(List<Pool> pools) {

  public PoolReport {
    pools = List.copyOf(pools);
  }

  /** One pool: where its devices are ({@code node}, or how they are selected), and its accounts. */
  public record Pool(String driver, String pool, String node, int devices, int allocated, List<CapacityAccount> capacity,
      List<CounterAccount> counters, SortedSet<String> devicesHeldBy) {
    public Pool {
      capacity = List.copyOf(capacity);
      counters = List.copyOf(counters);
      devicesHeldBy = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(devicesHeldBy));
    }

    public int free() {
      return devices - allocated;
    }

    /** Every device is allocated. */
    public boolean devicesExhausted() {
      return devices > 0 && allocated == devices;
    }
  }

  /**
   * One capacity summed over the pool's devices of one type ({@code nodeatlas.io/type}, empty for devices
   * without it: GPU memory and hugepage memory are not added up); {@code heldBy} are the claims consuming it.
   */
  public record CapacityAccount(String capacity, String deviceType, BigDecimal total, BigDecimal consumed,
      SortedSet<String> heldBy) {
    public CapacityAccount {
      heldBy = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(heldBy));
    }

    public BigDecimal left() {
      return total.subtract(consumed);
    }

    public boolean exhausted() {
      return total.signum() > 0 && left().signum() <= 0;
    }
  }

  /** One counter of a counter set: its value, what the allocated devices consume, by which claims. */
  public record CounterAccount(String counterSet, String counter, BigDecimal total, BigDecimal consumed,
      SortedSet<String> heldBy) {
    public CounterAccount {
      heldBy = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(heldBy));
    }

    public BigDecimal left() {
      return total.subtract(consumed);
    }

    public boolean exhausted() {
      return total.signum() > 0 && left().signum() <= 0;
    }
  }

  /** The accounts of every pool in {@code slices} with what {@code allocations} hold, ordered by node, driver, pool. */
  public static PoolReport of(List<SliceReader.Slice> slices, List<Allocation> allocations) {
    Map<String, Long> newest = new HashMap<>();
    slices.forEach(s -> newest.merge(s.driver() + "/" + s.pool(), s.generation(), Math::max));
    Map<String, List<Allocation>> held = new HashMap<>();
    allocations.forEach(a -> held.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a));
    Map<String, List<SliceReader.Slice>> pools = new LinkedHashMap<>();
    for (SliceReader.Slice s : slices) {
      if (s.generation() == newest.get(s.driver() + "/" + s.pool())) {
        pools.computeIfAbsent(s.driver() + "/" + s.pool(), k -> new ArrayList<>()).add(s);
      }
    }
    List<Pool> out = new ArrayList<>();
    for (List<SliceReader.Slice> parts : pools.values()) {
      SliceReader.Slice first = parts.get(0);
      int devices = 0;
      int allocated = 0;
      SortedSet<String> deviceHolders = new TreeSet<>();
      Map<String, BigDecimal> total = new TreeMap<>();
      Map<String, BigDecimal> consumed = new TreeMap<>();
      Map<String, SortedSet<String>> holders = new TreeMap<>();
      Map<String, BigDecimal> counterTotal = new TreeMap<>();
      Map<String, BigDecimal> counterUsed = new TreeMap<>();
      Map<String, SortedSet<String>> counterHolders = new TreeMap<>();
      for (SliceReader.Slice s : parts) {
        for (io.nodeatlas.discovery.model.CounterSet set : s.sharedCounters()) {
          set.counters().forEach((counter, q) -> counterTotal.putIfAbsent(set.name() + "\u0000" + counter, q.toBigDecimal()));
        }
        for (SliceReader.SliceDevice sd : s.devices()) {
          Device d = sd.device();
          devices++;
          List<Allocation> on = held.getOrDefault(s.driver() + "/" + s.pool() + "/" + d.name(), List.of());
          if (!on.isEmpty()) {
            allocated++;
            on.forEach(a -> deviceHolders.add(a.claim()));
          }
          if (!on.isEmpty()) {
            for (io.nodeatlas.discovery.model.CounterConsumption c : d.consumesCounters()) {
              c.counters().forEach((counter, q) -> {
                String key = c.counterSet() + "\u0000" + counter;
                counterUsed.merge(key, q.toBigDecimal(), BigDecimal::add);
                on.forEach(a -> counterHolders.computeIfAbsent(key, k -> new TreeSet<>()).add(a.claim()));
              });
            }
          }
          if (!d.consumesCounters().isEmpty()) {
            continue;
          }
          String type = d.type().orElse("");
          for (Map.Entry<String, Quantity> c : d.capacity().entrySet()) {
            String name = c.getKey();
            String key = type + "\u0000" + name;
            BigDecimal have = c.getValue().toBigDecimal();
            total.merge(key, have, BigDecimal::add);
            BigDecimal used = BigDecimal.ZERO;
            for (Allocation a : on) {
              BigDecimal part = d.allowMultipleAllocations() ? a.consumed().getOrDefault(name, BigDecimal.ZERO) : have;
              if (part.signum() > 0) {
                holders.computeIfAbsent(key, k -> new TreeSet<>()).add(a.claim());
              }
              used = used.add(part);
            }
            consumed.merge(key, used.min(have), BigDecimal::add);
          }
        }
      }
      List<CapacityAccount> accounts = new ArrayList<>();
      total.forEach((key, t) -> accounts.add(new CapacityAccount(key.substring(key.indexOf('\u0000') + 1),
          key.substring(0, key.indexOf('\u0000')), t, consumed.get(key), holders.getOrDefault(key, new TreeSet<>()))));
      List<CounterAccount> counterAccounts = new ArrayList<>();
      counterTotal.forEach((key, t) -> {
        String set = key.substring(0, key.indexOf('\u0000'));
        String counter = key.substring(key.indexOf('\u0000') + 1);
        counterAccounts.add(new CounterAccount(set, counter, t, counterUsed.getOrDefault(key, BigDecimal.ZERO).min(t),
            counterHolders.getOrDefault(key, new TreeSet<>())));
      });
      out.add(new Pool(first.driver(), first.pool(), where(first), devices, allocated, accounts, counterAccounts,
          deviceHolders));
    }
    out.sort(Comparator.comparing(Pool::node).thenComparing(Pool::driver).thenComparing(Pool::pool));
    return new PoolReport(out);
  }

  private static String where(SliceReader.Slice s) {
    if (s.selection() instanceof NodeSelection.OneNode one) {
      return one.name();
    } else if (s.selection() instanceof NodeSelection.AllNodes) {
      return "(all nodes)";
    } else if (s.selection() instanceof NodeSelection.Selector) {
      return "(node selector)";
    }
    return "(per device)";
  }
}
