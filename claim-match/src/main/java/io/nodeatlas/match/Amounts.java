package io.nodeatlas.match;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * How amounts of capacity are written in messages: {@link #EXACT} digits for JSON and YAML, which
 * programs read; {@link #HUMAN} as people write Kubernetes quantities ({@code 16Gi}, {@code 7Gi of 8Gi
 * left}) for text, for capacities that count bytes. A byte amount gets the largest binary-SI suffix that
 * keeps it exact ({@code resource.Quantity}'s BinarySI form); anything else stays plain.
 */
public enum Amounts {
  EXACT,
  HUMAN;

  private static final String[] SUFFIXES = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  private static final BigDecimal KI = BigDecimal.valueOf(1024);

  /** {@code value} of {@code capacity} (a qualified capacity name, or null when unknown) in this style. */
  public String text(String capacity, BigDecimal value) {
    String plain = value.stripTrailingZeros().toPlainString();
    if (this == EXACT || capacity == null || !countsBytes(capacity)) {
      return plain;
    }
    BigDecimal v = value.stripTrailingZeros();
    if (v.signum() <= 0 || v.scale() > 0) {
      return plain;
    }
    String suffix = "";
    for (String s : SUFFIXES) {
      BigDecimal[] qr = v.divideAndRemainder(KI);
      if (qr[1].signum() != 0 || qr[0].signum() == 0) {
        break;
      }
      v = qr[0];
      suffix = s;
    }
    return v.toPlainString() + suffix;
  }

  /** {@code text} of a plain decimal string, as the reports keep amounts; other text is returned as is. */
  public String text(String capacity, String value) {
    if (value == null) {
      return null;
    }
    try {
      return text(capacity, new BigDecimal(value));
    } catch (NumberFormatException e) {
      return value;
    }
  }

  /** Capacities whose unit is the byte: {@code memory}, {@code hugepageBytes}, {@code size}. */
  static boolean countsBytes(String capacity) {
    String name = capacity.substring(capacity.indexOf('/') + 1).toLowerCase(Locale.ROOT);
    return name.contains("memory") || name.contains("bytes") || name.contains("size");
  }
}
