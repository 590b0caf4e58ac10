package io.nodeatlas.match;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.match.MatchReport.Consumed;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the claims allocated so far hold of the node: exclusive devices by the claim that holds them,
 * and per shared device what the claims consume of each capacity.
 */
final class Ledger {
  final Map<String, String> exclusive = new HashMap<>();
  final Map<String, Map<String, BigDecimal>> consumed = new HashMap<>();
  /** Counters (KEP-4815) that earlier claims' devices consume, and by which device and claim. */
  final Counters counters;
  /** Devices whose counters earlier claims hold (a shared device consumes its counters once). */
  final Map<String, String> counted = new HashMap<>();

  Ledger(Counters counters) {
    this.counters = counters;
  }

  /** What allocated claims held before this run, on the devices of this node. */
  void preload(Inventory inventory, List<Device> devices) {
    Map<String, Device> byName = new HashMap<>();
    devices.forEach(d -> byName.put(d.name(), d));
    for (Inventory.Held h : inventory.held()) {
      Device d = byName.get(h.device());
      if (d == null) {
        continue;
      }
      if (!d.consumesCounters().isEmpty() && counted.putIfAbsent(d.name(), h.claim()) == null) {
        counters.take(d, d.name() + " (" + h.claim() + ")");
      }
      if (!d.allowMultipleAllocations()) {
        exclusive.put(d.name(), h.claim());
        continue;
      }
      Map<String, BigDecimal> used = consumed.computeIfAbsent(d.name(), k -> new HashMap<>());
      h.consumed().forEach((capacity, amount) -> CapacityDemand.capacityKey(d, capacity)
          .ifPresent(key -> used.merge(key, amount, BigDecimal::add)));
    }
  }

  /** Records a claim's allocation; returns what each of its requests consumed and what is left after it. */
  List<Consumed> commit(String claim, Map<String, List<Device>> chosen, Map<String, Candidates> from) {
    List<Consumed> out = new ArrayList<>();
    chosen.forEach((key, devices) -> {
      Candidates alt = from.get(key);
      for (Device d : devices) {
        if (!d.consumesCounters().isEmpty() && counted.putIfAbsent(d.name(), claim) == null) {
          counters.take(d, d.name() + " (" + claim + ")");
        }
        CapacityDemand.Demand demand = alt.demands().get(d.name());
        if (!demand.shared()) {
          exclusive.put(d.name(), claim);
          out.add(new Consumed(key, d.name(), null, null, null, null));
          continue;
        }
        Map<String, BigDecimal> used = consumed.computeIfAbsent(d.name(), k -> new HashMap<>());
        for (CapacityDemand.Share share : demand.shares()) {
          BigDecimal total = used.merge(share.capacity(), share.consumed(), BigDecimal::add);
          BigDecimal have = d.capacity().get(share.capacity()).toBigDecimal();
          out.add(new Consumed(key, d.name(), share.capacity(), CapacityDemand.plain(share.consumed()),
              CapacityDemand.plain(have.subtract(total)), CapacityDemand.plain(have)));
        }
      }
    });
    return out;
  }

  /** Why earlier claims keep {@code d} from serving {@code demand}; null when they do not. */
  String blocked(Device d, CapacityDemand.Demand demand, Amounts amounts) {
    if (!counted.containsKey(d.name())) {
      String short_ = counters.shortfall(d);
      if (short_ != null) {
        return short_;
      }
    }
    if (!demand.shared()) {
      String holder = exclusive.get(d.name());
      return holder == null ? null : d.name() + " is allocated to " + holder;
    }
    Map<String, BigDecimal> used = consumed.getOrDefault(d.name(), Map.of());
    for (CapacityDemand.Share share : demand.shares()) {
      BigDecimal have = d.capacity().get(share.capacity()).toBigDecimal();
      BigDecimal left = have.subtract(used.getOrDefault(share.capacity(), BigDecimal.ZERO));
      if (share.consumed().compareTo(left) > 0) {
        String c = share.capacity();
        return d.name() + " has " + amounts.text(c, left) + " of " + amounts.text(c, share.consumed())
            + " requested " + c + " left (" + amounts.text(c, have.subtract(left)) + " of "
            + amounts.text(c, have) + " allocated to earlier claims)";
      }
    }
    return null;
  }
}
