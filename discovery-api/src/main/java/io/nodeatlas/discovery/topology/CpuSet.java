package io.nodeatlas.discovery.topology;

import java.util.BitSet;
import java.util.stream.IntStream;

/**
 * An immutable set of CPU (or NUMA node) ids. {@link #toString()} prints the kernel's list format
 * ({@code %*pbl}: ascending {@code N} and {@code N-M} items joined by commas, empty for the empty set),
 * so sets compare and print the way sysfs shows them.
 */
public final class CpuSet implements Comparable<CpuSet> {

  public static final CpuSet EMPTY = new CpuSet(new BitSet());

  private final BitSet bits;

  private CpuSet(BitSet bits) {
    this.bits = bits;
  }

  public static CpuSet of(int... ids) {
    BitSet bits = new BitSet();
    for (int id : ids) {
      if (id < 0) {
        throw new IllegalArgumentException("negative CPU id " + id);
      }
      bits.set(id);
    }
    return new CpuSet(bits);
  }

  public static CpuSet range(int fromInclusive, int toInclusive) {
    BitSet bits = new BitSet();
    bits.set(fromInclusive, toInclusive + 1);
    return new CpuSet(bits);
  }

  /** Wraps a copy of {@code bits}. */
  public static CpuSet fromBits(BitSet bits) {
    return new CpuSet((BitSet) bits.clone());
  }

  public boolean isEmpty() {
    return bits.isEmpty();
  }

  public int size() {
    return bits.cardinality();
  }

  public boolean contains(int id) {
    return id >= 0 && bits.get(id);
  }

  /** Lowest id, or -1 when empty. */
  public int first() {
    return bits.nextSetBit(0);
  }

  public IntStream stream() {
    return bits.stream();
  }

  public CpuSet intersect(CpuSet other) {
    BitSet copy = (BitSet) bits.clone();
    copy.and(other.bits);
    return new CpuSet(copy);
  }

  public CpuSet union(CpuSet other) {
    BitSet copy = (BitSet) bits.clone();
    copy.or(other.bits);
    return new CpuSet(copy);
  }

  public CpuSet minus(CpuSet other) {
    BitSet copy = (BitSet) bits.clone();
    copy.andNot(other.bits);
    return new CpuSet(copy);
  }

  public boolean containsAll(CpuSet other) {
    BitSet copy = (BitSet) other.bits.clone();
    copy.andNot(bits);
    return copy.isEmpty();
  }

  public BitSet toBitSet() {
    return (BitSet) bits.clone();
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    int start = bits.nextSetBit(0);
    while (start >= 0) {
      int end = bits.nextClearBit(start) - 1;
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(start);
      if (end > start) {
        out.append('-').append(end);
      }
      start = bits.nextSetBit(end + 1);
    }
    return out.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CpuSet other && bits.equals(other.bits);
  }

  @Override
  public int hashCode() {
    return bits.hashCode();
  }

  /** Orders by lowest member, then by size, so lists of sets sort the way a reader expects. */
  @Override
  public int compareTo(CpuSet o) {
    int c = Integer.compare(first(), o.first());
    if (c != 0) {
      return c;
    }
    c = Integer.compare(size(), o.size());
    return c != 0 ? c : toString().compareTo(o.toString());
  }
}
