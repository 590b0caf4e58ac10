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

  private ArraySortedMap(String[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
  }

  /** A copy of {@code map} in natural key order. */
  static <V> SortedMap<String, V> copyOf(Map<String, V> map) {
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
