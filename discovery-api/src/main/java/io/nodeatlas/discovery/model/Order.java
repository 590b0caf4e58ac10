package io.nodeatlas.discovery.model;

import java.util.Comparator;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * An order by keys, first key first: {@code Order.byInt(Die::packageId).thenInt(Die::id).then(Die::cpus)}
 * means what {@code Comparator.comparingInt(...).thenComparingInt(...).thenComparing(...)} means.
 *
 * <p>Why not the JDK's combinators: every discover run sorts what it publishes, and the JDK builds
 * those comparators from serializable lambdas, which the JDK's AOT cache (JEP 483) does not link ahead
 * of time. A cold {@code nodeatlas discover} would spin their classes at run time, and start the
 * class-file machinery to do it, before its first sort; the lambdas here are ordinary ones of this
 * class, which the cache links with the rest. Orders used only off that path may use either.
 *
 * @param <T> what is ordered
 */
public final class Order<T> implements Comparator<T> {

  private final Order<T> before;
  private final Comparator<? super T> key;

  private Order(Order<T> before, Comparator<? super T> key) {
    this.before = before;
    this.key = key;
  }

  /** Ordered by an int key. */
  public static <T> Order<T> byInt(ToIntFunction<? super T> key) {
    return new Order<>(null, intKey(key));
  }

  /** Ordered by a long key. */
  public static <T> Order<T> byLong(ToLongFunction<? super T> key) {
    return new Order<>(null, longKey(key));
  }

  /** Ordered by a key in its natural order. */
  public static <T, K extends Comparable<? super K>> Order<T> by(Function<? super T, ? extends K> key) {
    return new Order<>(null, naturalKey(key));
  }

  /** Then, among equals so far, by an int key. */
  public Order<T> thenInt(ToIntFunction<? super T> next) {
    return new Order<>(this, intKey(next));
  }

  /** Then, among equals so far, by a long key. */
  public Order<T> thenLong(ToLongFunction<? super T> next) {
    return new Order<>(this, longKey(next));
  }

  /** Then, among equals so far, by a key in its natural order. */
  public <K extends Comparable<? super K>> Order<T> then(Function<? super T, ? extends K> next) {
    return new Order<>(this, naturalKey(next));
  }

  @Override
  public int compare(T a, T b) {
    if (before != null) {
      int c = before.compare(a, b);
      if (c != 0) {
        return c;
      }
    }
    return key.compare(a, b);
  }

  private static <T> Comparator<T> intKey(ToIntFunction<? super T> key) {
    return (a, b) -> Integer.compare(key.applyAsInt(a), key.applyAsInt(b));
  }

  private static <T> Comparator<T> longKey(ToLongFunction<? super T> key) {
    return (a, b) -> Long.compare(key.applyAsLong(a), key.applyAsLong(b));
  }

  private static <T, K extends Comparable<? super K>> Comparator<T> naturalKey(Function<? super T, ? extends K> key) {
    return (a, b) -> key.apply(a).compareTo(key.apply(b));
  }
}
