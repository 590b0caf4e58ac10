package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OrderTest {

  /** Few distinct values per key, so later keys decide often. */
  record Row(int a, long b, String c, int seq) {}

  private static List<Row> rows(long seed) {
    Random random = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      rows.add(new Row(random.nextInt(4) - 2, random.nextInt(3) * (1L << 40), "v" + random.nextInt(3), i));
    }
    return rows;
  }

  private static List<Row> sorted(List<Row> rows, Comparator<Row> order) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort(order);
    return copy;
  }

  @Test
  void sortsAsTheJdkCombinatorsDoKeyByKey() {
    for (long seed = 0; seed < 20; seed++) {
      List<Row> rows = rows(seed);
      assertThat(sorted(rows, Order.<Row>byInt(Row::a).thenLong(Row::b).then(Row::c).thenInt(Row::seq)))
          .containsExactlyElementsOf(sorted(rows, Comparator.comparingInt(Row::a).thenComparingLong(Row::b)
              .thenComparing(Row::c).thenComparingInt(Row::seq)));
      assertThat(sorted(rows, Order.<Row, String>by(Row::c).thenInt(Row::a)))
          .containsExactlyElementsOf(sorted(rows, Comparator.comparing(Row::c).thenComparingInt(Row::a)));
      assertThat(sorted(rows, Order.byLong(Row::b)))
          .containsExactlyElementsOf(sorted(rows, Comparator.comparingLong(Row::b)));
    }
  }

  @Test
  void laterKeysDecideOnlyAmongEqualsSoFar() {
    Row low = new Row(-1, 9, "z", 0);
    Row high = new Row(1, 0, "a", 1);
    Order<Row> order = Order.<Row>byInt(Row::a).thenLong(Row::b).then(Row::c);
    assertThat(order.compare(low, high)).isNegative();
    assertThat(order.compare(high, low)).isPositive();
    assertThat(order.compare(low, new Row(-1, 9, "z", 5))).isZero();
    // Extremes compare as numbers, not by subtraction (which would overflow).
    assertThat(Order.<Row>byInt(Row::a).compare(new Row(Integer.MIN_VALUE, 0, "", 0), new Row(Integer.MAX_VALUE, 0, "", 0)))
        .isNegative();
    assertThat(Order.<Row>byLong(Row::b).compare(new Row(0, Long.MAX_VALUE, "", 0), new Row(0, Long.MIN_VALUE, "", 0)))
        .isPositive();
  }

  @Test
  void equalRowsKeepTheirOrderInAStableSort() {
    List<Row> rows = rows(7);
    Collections.shuffle(rows, new Random(3));
    List<Row> byA = sorted(rows, Order.byInt(Row::a));
    for (int i = 1; i < byA.size(); i++) {
      if (byA.get(i - 1).a() == byA.get(i).a()) {
        assertThat(rows.indexOf(byA.get(i - 1))).isLessThan(rows.indexOf(byA.get(i)));
      }
    }
  }
}
