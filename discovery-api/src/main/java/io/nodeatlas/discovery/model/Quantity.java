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

  public Quantity {
    if (value == null || !FORMAT.matcher(value).matches()) {
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

  @Override
  public int compareTo(Quantity other) {
    return toBigDecimal().compareTo(other.toBigDecimal());
  }

  @Override
  public String toString() {
    return value;
  }
}
