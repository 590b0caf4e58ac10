package io.nodeatlas.discovery.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * An unmodifiable map in natural key order held in two arrays: a device's few attributes and capacities
 * without a tree entry each (a fleet view holds 100,000 devices). Equal to, and iterated like, the
 * {@link TreeMap} it was copied from; lookups are binary searches.
 */
final class ArraySortedMap<V> extends AbstractMap<String, V> implements SortedMap<String, V> {

  private final String[] keys;
  private final Object[] values;
  /**
   * Set by a {@link Device} once it checked the keys as qualified names; a device handed this map checks
   * them no more (a fleet repeats a few maps). Only ever set after the check: a stale false re-checks.
   */
  private boolean qualifiedNames;

  private ArraySortedMap(String[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
  }

  /** A copy of {@code map} in natural key order; {@code map} itself when it is one already (it cannot change). */
  static <V> SortedMap<String, V> copyOf(Map<String, V> map) {
    if (map instanceof ArraySortedMap<V> same) {
      return same;
    }
    SortedMap<String, V> sorted = map instanceof SortedMap<String, V> s && s.comparator() == null ? s : new TreeMap<>(map);
    String[] keys = new String[sorted.size()];
    Object[] values = new Object[keys.length];
    int[] i = {0};
    sorted.forEach((k, v) -> {
      keys[i[0]] = java.util.Objects.requireNonNull(k);
      values[i[0]++] = v;
    });
    return new ArraySortedMap<>(keys, values);
  }

  /** Whether a device checked the keys as qualified names ({@link Names#requireQualifiedName}). */
  static boolean hasQualifiedNames(Map<String, ?> map) {
    return map instanceof ArraySortedMap<?> a && a.qualifiedNames;
  }

  /** Records that the keys of {@code map} passed {@link Names#requireQualifiedName}. */
  static void qualifiedNamesChecked(Map<String, ?> map) {
    if (map instanceof ArraySortedMap<?> a) {
      a.qualifiedNames = true;
    }
  }

  private int index(Object key) {
    return key instanceof String s ? Arrays.binarySearch(keys, s) : -1;
  }

  @Override
  public int size() {
    return keys.length;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    int i = index(key);
    return i >= 0 ? (V) values[i] : null;
  }

  @Override
  public boolean containsKey(Object key) {
    return index(key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<? super String, ? super V> action) {
    for (int i = 0; i < keys.length; i++) {
      action.accept(keys[i], (V) values[i]);
    }
  }

  @Override
  public Set<Entry<String, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public Iterator<Entry<String, V>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < keys.length;
          }

          @Override
          @SuppressWarnings("unchecked")
          public Entry<String, V> next() {
            if (next >= keys.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(keys[i], (V) values[i]);
          }
        };
      }
    };
  }

  /** As {@link Map#hashCode()} defines it, without an entry object per key. */
  @Override
  public int hashCode() {
    int h = 0;
    for (int i = 0; i < keys.length; i++) {
      h += keys[i].hashCode() ^ java.util.Objects.hashCode(values[i]);
    }
    return h;
  }

  @Override
  public boolean equals(Object o) {
    if (o instanceof ArraySortedMap<?> other) {
      // Both in natural key order: equal maps have equal arrays.
      return Arrays.equals(keys, other.keys) && Arrays.equals(values, other.values);
    }
    return super.equals(o);
  }

  @Override
  public Comparator<? super String> comparator() {
    return null;
  }

  @Override
  public String firstKey() {
    if (keys.length == 0) {
      throw new NoSuchElementException();
    }
    return keys[0];
  }

  @Override
  public String lastKey() {
    if (keys.length == 0) {
      throw new NoSuchElementException();
    }
    return keys[keys.length - 1];
  }

  @Override
  public SortedMap<String, V> subMap(String fromKey, String toKey) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(this).subMap(fromKey, toKey));
  }

  @Override
  public SortedMap<String, V> headMap(String toKey) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(this).headMap(toKey));
  }

  @Override
  public SortedMap<String, V> tailMap(String fromKey) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(this).tailMap(fromKey));
  }
}
