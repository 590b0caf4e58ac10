package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.topology.CpuSet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses the concrete CPUs of one CPU share. Pure: the layout, the CPUs other shares hold and the
 * count in, a choice out; the same input always gives the same CPUs.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li>only CPUs of the layout (the device's allocatable CPUs: reserved CPUs never are) that no other
 *       share holds;
 *   <li>whole physical cores first, SMT siblings together, so two shares never share a core's
 *       execution units while a whole core is left;
 *   <li>best fit over groups (last-level cache, else package): whole cores come from the group with the
 *       fewest free whole-core CPUs that still holds them all, else from the fullest groups first, so
 *       large free blocks stay whole for later, larger shares;
 *   <li>a remainder smaller than a core goes into the holes first: threads of cores another share
 *       already broke (the core with the fewest free threads first), then threads of one whole core,
 *       taken in CPU order so siblings stay together.
 * </ol>
 */
public final class CpuAllocator {

  /** The outcome: the chosen CPUs, or why none could be chosen. */
  public record Choice(CpuSet cpus, String refusal) {
    public boolean chosen() {
      return refusal == null;
    }

    static Choice of(CpuSet cpus) {
      return new Choice(cpus, null);
    }

    static Choice refused(String why) {
      return new Choice(CpuSet.EMPTY, why);
    }
  }

  public Choice choose(CpuLayout layout, CpuSet taken, int count) {
    if (count <= 0) {
      return Choice.refused("a share takes at least 1 CPU, not " + count);
    }
    CpuSet free = layout.allocatable().minus(taken);
    if (free.size() < count) {
      return Choice.refused(free.size() + " of the " + count + " requested CPUs are free (" + layout.allocatable().size()
          + " allocatable, " + layout.allocatable().intersect(taken).size() + " held by other shares)");
    }
    List<CpuLayout.Core> whole = new ArrayList<>();
    List<CpuLayout.Core> broken = new ArrayList<>();
    for (CpuLayout.Core c : layout.cores()) {
      CpuSet f = c.cpus().minus(taken);
      if (f.size() == c.cpus().size()) {
        whole.add(c);
      } else if (!f.isEmpty()) {
        broken.add(c);
      }
    }
    BitSet chosen = new BitSet();
    int need = count;
    // Whole cores that fit in what is still needed, group by group (best fit).
    List<CpuLayout.Core> left = new ArrayList<>(whole);
    while (need > 0) {
      int stillNeeded = need;
      List<CpuLayout.Core> fitting = left.stream().filter(c -> c.cpus().size() <= stillNeeded).toList();
      if (fitting.isEmpty()) {
        break;
      }
      int group = bestGroup(fitting, need);
      for (CpuLayout.Core c : fitting) {
        if (c.group() == group && c.cpus().size() <= need) {
          c.cpus().stream().forEach(chosen::set);
          need -= c.cpus().size();
          left.remove(c);
        }
      }
    }
    if (need > 0) {
      // The remainder: holes in broken cores first, then one whole core broken, siblings in CPU order.
      Map<Integer, Integer> groupUse = new HashMap<>();
      chosenGroups(layout, chosen).forEach(g -> groupUse.merge(g, 1, Integer::sum));
      List<CpuLayout.Core> order = new ArrayList<>();
      order.addAll(broken.stream().sorted(Comparator
          .comparingInt((CpuLayout.Core c) -> groupUse.containsKey(c.group()) ? 0 : 1)
          .thenComparingInt(c -> c.cpus().minus(taken).size())
          .thenComparingInt(CpuLayout.Core::index)).toList());
      order.addAll(left.stream().sorted(Comparator
          .comparingInt((CpuLayout.Core c) -> groupUse.containsKey(c.group()) ? 0 : 1)
          .thenComparingInt(c -> groupFree(left, c.group()))
          .thenComparingInt(CpuLayout.Core::index)).toList());
      for (CpuLayout.Core c : order) {
        int[] cpus = c.cpus().minus(taken).stream().toArray();
        for (int i = 0; i < cpus.length && need > 0; i++) {
          if (!chosen.get(cpus[i])) {
            chosen.set(cpus[i]);
            need--;
          }
        }
        if (need == 0) {
          break;
        }
      }
    }
    if (need > 0) {
      // Unreachable while the free count above holds; kept so a layout bug cannot hand out too few.
      return Choice.refused("only " + (count - need) + " of the " + count + " requested CPUs could be placed");
    }
    return Choice.of(CpuSet.fromBits(chosen));
  }

  /** The group whose free whole-core CPUs hold {@code need} most tightly; else the one with the most. */
  private static int bestGroup(List<CpuLayout.Core> fitting, int need) {
    Map<Integer, Integer> free = new HashMap<>();
    for (CpuLayout.Core c : fitting) {
      free.merge(c.group(), c.cpus().size(), Integer::sum);
    }
    Integer best = null;
    for (Map.Entry<Integer, Integer> e : free.entrySet()) {
      if (e.getValue() >= need && (best == null || e.getValue() < free.get(best)
          || (e.getValue().equals(free.get(best)) && e.getKey() < best))) {
        best = e.getKey();
      }
    }
    if (best != null) {
      return best;
    }
    for (Map.Entry<Integer, Integer> e : free.entrySet()) {
      if (best == null || e.getValue() > free.get(best) || (e.getValue().equals(free.get(best)) && e.getKey() < best)) {
        best = e.getKey();
      }
    }
    return best;
  }

  private static int groupFree(List<CpuLayout.Core> cores, int group) {
    int n = 0;
    for (CpuLayout.Core c : cores) {
      if (c.group() == group) {
        n += c.cpus().size();
      }
    }
    return n;
  }

  private static List<Integer> chosenGroups(CpuLayout layout, BitSet chosen) {
    List<Integer> out = new ArrayList<>();
    for (CpuLayout.Core c : layout.cores()) {
      if (c.cpus().stream().anyMatch(chosen::get)) {
        out.add(c.group());
      }
    }
    return out;
  }
}
