package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuantityTest {

  private static final List<String> VALUES = List.of("0", "1", "-1", "+7", "16", "1000", "1k", "1Ki", "1024", "1023",
      "2Mi", "2097152", "2M", "1G", "1Gi", "1073741824", "999999999999999999", "9223372036854775807", "8Ei", "7Ei",
      "9E", "10E", "500m", "0.5", "1e3", "1E3", "1.5Gi", "-2Gi", "3u", "4n", "123456789012345678Ki", ".5");

  /** The long fast path orders every pair exactly as BigDecimal does, overflow and fractions included. */
  @Test
  void comparisonAgreesWithTheExactDecimalValue() {
    for (String a : VALUES) {
      for (String b : VALUES) {
        BigDecimal x = new Quantity(a).toBigDecimal();
        BigDecimal y = new Quantity(b).toBigDecimal();
        assertThat(Integer.signum(new Quantity(a).compareTo(new Quantity(b)))).as(a + " vs " + b)
            .isEqualTo(x.compareTo(y));
      }
    }
  }

  @Test
  void stepsAreCheckedExactlyWithAndWithoutSuffixes() {
    assertThat(Quantity.parse("6Gi").isOnStep(Quantity.parse("2Gi"), Quantity.parse("1Gi"))).isTrue();
    assertThat(Quantity.parse("6Gi").isOnStep(Quantity.parse("1"), Quantity.parse("1Gi"))).isFalse();
    assertThat(Quantity.parse("2097152").isOnStep(Quantity.parse("0"), Quantity.parse("2Mi"))).isTrue();
    assertThat(Quantity.parse("1500m").isOnStep(Quantity.parse("500m"), Quantity.parse("1"))).isTrue();
    assertThat(Quantity.parse("1750m").isOnStep(Quantity.parse("500m"), Quantity.parse("1"))).isFalse();
    assertThat(Quantity.parse("8Ei").isOnStep(Quantity.parse("-8Ei"), Quantity.parse("1Ei"))).isTrue();
    assertThat(Quantity.parse("1").isPositive()).isTrue();
    assertThat(Quantity.parse("0").isPositive()).isFalse();
    assertThat(Quantity.parse("1m").isPositive()).isTrue();
    assertThat(Quantity.parse("-1Gi").isPositive()).isFalse();
  }

  @Test
  void plainIntegersStillValidateAndOddFormsStillParse() {
    for (String bad : new String[] {"", "-", "+", "1.2.3", "1Ki2", "Ki", "0x10", " 1", "1 "}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Quantity(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(new Quantity("0012").toBigDecimal()).isEqualByComparingTo("12");
    assertThat(new Quantity("-9223372036854775808").toBigDecimal()).isEqualByComparingTo("-9223372036854775808");
  }
}
