package io.nodeatlas.discovery.model;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes resource quantity ({@code k8s.io/apimachinery/pkg/api/resource.Quantity}) in its
 * serialised form: a signed decimal number followed by an optional binary-SI ({@code Ki}..{@code Ei}),
 * decimal-SI ({@code n u m k M G T P E}) or exponent ({@code e3}) suffix. Device capacities are
 * quantities; we publish plain integers (bytes, pages, CPUs) so that no precision is lost.
 */
public record Quantity(String value) implements Comparable<Quantity> {

  private static final Pattern FORMAT =
      Pattern.compile("^([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$");

  /** {@link #exact()} of a quantity that is not an integer in range of a long. */
  private static final long NOT_EXACT = Long.MIN_VALUE;

  public Quantity {
    if (value == null || (!isPlainInteger(value) && !FORMAT.matcher(value).matches())) {
      throw new IllegalArgumentException("\"" + value + "\" is not a Kubernetes quantity (examples: 16, 2Gi, 500m)");
    }
  }

  /** A plain integer quantity, as the API server would print it. */
  public static Quantity of(long value) {
    return new Quantity(Long.toString(value));
  }

  /** Parses and validates a serialised quantity. */
  public static Quantity parse(String text) {
    return new Quantity(text == null ? null : text.trim());
  }

  /** The exact numeric value, suffix applied ({@code 2Ki} is 2048, {@code 500m} is 0.5). */
  public BigDecimal toBigDecimal() {
    if (isPlainInteger(value) && value.length() <= 18) {
      // Most capacities are plain integers (we publish them so); no pattern needed.
      return BigDecimal.valueOf(Long.parseLong(value));
    }
    Matcher m = FORMAT.matcher(value);
    if (!m.matches()) {
      throw new IllegalStateException(value);
    }
    BigDecimal number = new BigDecimal(m.group(1));
    String suffix = m.group(2);
    if (suffix == null) {
      return number;
    }
    return switch (suffix) {
      case "Ki" -> number.multiply(BigDecimal.valueOf(1L << 10));
      case "Mi" -> number.multiply(BigDecimal.valueOf(1L << 20));
      case "Gi" -> number.multiply(BigDecimal.valueOf(1L << 30));
      case "Ti" -> number.multiply(BigDecimal.valueOf(1L << 40));
      case "Pi" -> number.multiply(BigDecimal.valueOf(1L << 50));
      case "Ei" -> number.multiply(BigDecimal.valueOf(1L << 60));
      case "n" -> number.scaleByPowerOfTen(-9);
      case "u" -> number.scaleByPowerOfTen(-6);
      case "m" -> number.scaleByPowerOfTen(-3);
      case "k" -> number.scaleByPowerOfTen(3);
      case "M" -> number.scaleByPowerOfTen(6);
      case "G" -> number.scaleByPowerOfTen(9);
      case "T" -> number.scaleByPowerOfTen(12);
      case "P" -> number.scaleByPowerOfTen(15);
      case "E" -> number.scaleByPowerOfTen(18);
      default -> number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    };
  }

  /**
   * Compares numeric values. Integers that fit a long (what we publish: bytes, pages, CPUs) compare as
   * longs; anything else through {@link BigDecimal}, whose class initialisation alone was a visible
   * share of a cold {@code discover}.
   */
  @Override
  public int compareTo(Quantity other) {
    long a = exact();
    long b = other.exact();
    if (a != NOT_EXACT && b != NOT_EXACT) {
      return Long.compare(a, b);
    }
    return toBigDecimal().compareTo(other.toBigDecimal());
  }

  /** Whether the value is positive (above zero). */
  public boolean isPositive() {
    long v = exact();
    return v != NOT_EXACT ? v > 0 : toBigDecimal().signum() > 0;
  }

  /**
   * Whether {@code this - origin} is a whole multiple of {@code step} (a positive quantity): with longs
   * where all three are integers that fit, else exactly with {@link BigDecimal}.
   */
  public boolean isOnStep(Quantity origin, Quantity step) {
    long v = exact();
    long o = origin.exact();
    long s = step.exact();
    if (v != NOT_EXACT && o != NOT_EXACT && s != NOT_EXACT && s > 0) {
      try {
        return Math.subtractExact(v, o) % s == 0;
      } catch (ArithmeticException overflow) {
        // fall through to the exact form
      }
    }
    return toBigDecimal().subtract(origin.toBigDecimal()).remainder(step.toBigDecimal()).signum() == 0;
  }

  /** Digits only, with an optional sign: the form {@link #of} writes and sysfs counts parse into. */
  private static boolean isPlainInteger(String v) {
    int start = v.startsWith("-") || v.startsWith("+") ? 1 : 0;
    if (v.length() == start || v.length() - start > 18) {
      return false;
    }
    for (int i = start; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * The value as a long when it is an integer with no suffix or a binary or decimal multiplier suffix
   * and fits; {@link #NOT_EXACT} otherwise (fractions, milli/micro/nano, exponents, overflow).
   */
  private long exact() {
    String v = value;
    int end = v.length();
    long multiplier = 1;
    if (end >= 2 && v.charAt(end - 1) == 'i') {
      int shift = switch (v.charAt(end - 2)) {
        case 'K' -> 10;
        case 'M' -> 20;
        case 'G' -> 30;
        case 'T' -> 40;
        case 'P' -> 50;
        case 'E' -> 60;
        default -> -1;
      };
      if (shift < 0) {
        return NOT_EXACT;
      }
      multiplier = 1L << shift;
      end -= 2;
    } else if (end >= 1 && !Character.isDigit(v.charAt(end - 1))) {
      int power = switch (v.charAt(end - 1)) {
        case 'k' -> 3;
        case 'M' -> 6;
        case 'G' -> 9;
        case 'T' -> 12;
        case 'P' -> 15;
        case 'E' -> 18;
        default -> -1;
      };
      if (power < 0) {
        return NOT_EXACT;
      }
      for (int i = 0; i < power; i++) {
        multiplier *= 10;
      }
      end -= 1;
    }
    String digits = v.substring(0, end);
    if (!isPlainInteger(digits)) {
      return NOT_EXACT;
    }
    try {
      return Math.multiplyExact(Long.parseLong(digits), multiplier);
    } catch (ArithmeticException | NumberFormatException e) {
      return NOT_EXACT;
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
