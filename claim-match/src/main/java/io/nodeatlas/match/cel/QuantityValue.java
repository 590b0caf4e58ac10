package io.nodeatlas.match.cel;

import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The CEL value {@code kubernetes.Quantity}: what a device capacity and {@code quantity("...")} evaluate
 * to (DRALIB {@code cel} library, {@code resource.k8s.io/v1} selectors). Arithmetic is exact ({@link BigDecimal}); equality is numeric, so
 * {@code quantity("1Gi") == quantity("1024Mi")}, as with {@code resource.Quantity.Equal}.
 */
public final class QuantityValue implements Comparable<QuantityValue> {

  /**
   * Largest decimal exponent we accept. Real quantities stay far below it (1Ei is about 1e18); the bound
   * keeps exact arithmetic on inputs such as {@code 1e999999999} from building numbers with a billion digits.
   */
  static final int MAX_EXPONENT = 1000;

  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private final BigDecimal value;
  private final String text;

  private QuantityValue(BigDecimal value, String text) {
    int exponent = value.signum() == 0 ? 0 : value.precision() - value.scale();
    if (Math.abs(exponent) > MAX_EXPONENT || value.precision() > MAX_EXPONENT) {
      throw new IllegalArgumentException("quantity " + text + " is out of the range nodeatlas evaluates (|exponent| <= " + MAX_EXPONENT + ")");
    }
    this.value = value;
    this.text = text;
  }

  /** Parses the Kubernetes quantity syntax ({@code 2Gi}, {@code 500m}, {@code 1e3}); {@code 200K} is an error. */
  public static QuantityValue parse(String text) {
    Quantity q;
    try {
      q = new Quantity(text);
    } catch (IllegalArgumentException e) {
      if (text != null && text.matches("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")) {
        // apimachinery's ParseQuantity: the text has the shape of a quantity but no suffix it knows ("10Mm").
        throw new IllegalArgumentException("unable to parse quantity's suffix: \"" + text + "\"", e);
      }
      throw new IllegalArgumentException("quantities must match the regular expression "
          + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"" + (text == null ? "null" : text) + "\"", e);
    }
    String suffix = text.replaceFirst("^[+-]?[0-9.]+", "");
    if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      // Refuse absurd exponents before BigDecimal scales by them.
      String digits = suffix.substring(1).replaceFirst("^[+-]", "");
      if (digits.length() > 6) {
        throw new IllegalArgumentException("quantity " + text + " is out of the range nodeatlas evaluates");
      }
    }
    return new QuantityValue(q.toBigDecimal(), text);
  }

  public static boolean isValid(String text) {
    try {
      parse(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public static QuantityValue of(Quantity q) {
    String v = q.value();
    if (!v.isEmpty() && v.length() <= 18 && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // A plain integer, as capacities are published: valid by construction, no pattern needed.
      return new QuantityValue(q.toBigDecimal(), v);
    }
    return parse(v);
  }

  public BigDecimal value() {
    return value;
  }

  public QuantityValue add(QuantityValue other) {
    BigDecimal sum = value.add(other.value);
    return new QuantityValue(sum, sum.toPlainString());
  }

  public QuantityValue subtract(QuantityValue other) {
    BigDecimal diff = value.subtract(other.value);
    return new QuantityValue(diff, diff.toPlainString());
  }

  public static QuantityValue ofLong(long v) {
    return new QuantityValue(BigDecimal.valueOf(v), Long.toString(v));
  }

  public long sign() {
    return value.signum();
  }

  /** {@code resource.Quantity.AsInt64}: succeeds only for whole numbers that fit in an int64. */
  public boolean isInteger() {
    if (value.compareTo(LONG_MIN) < 0 || value.compareTo(LONG_MAX) > 0) {
      return false;
    }
    return value.signum() == 0 || value.scale() <= 0 || value.stripTrailingZeros().scale() <= 0;
  }

  public long asInteger() {
    if (!isInteger()) {
      throw new ArithmeticException("cannot convert value to integer");
    }
    BigInteger whole = value.toBigIntegerExact();
    return whole.longValueExact();
  }

  public double asApproximateFloat() {
    return value.doubleValue();
  }

  @Override
  public int compareTo(QuantityValue o) {
    return value.compareTo(o.value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QuantityValue q && value.compareTo(q.value) == 0;
  }

  @Override
  public int hashCode() {
    return value.signum() == 0 ? 0 : value.stripTrailingZeros().hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
