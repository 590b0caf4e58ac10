package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.cel.SelectorResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The apiserver's quantity table, case by case: k8s.io/apiserver {@code pkg/cel/library/quantity_test.go}
 * ({@code TestQuantity}, HEAD of 2026-07-23). A value row holds when {@code (expression) == (expected)}; an error
 * row when evaluation fails with a message matching upstream's pattern; a compile-error row when the checker
 * refuses it. None is left out.
 */
class UpstreamQuantityTableTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final Map<String, Object> NO_DEVICE = DeviceVariable.assemble("", false, Map.of(), Map.of());

  record Row(String name, String expression, String expected, String runtimeError, String compileError) {
    @Override
    public String toString() {
      return name + " " + expression;
    }
  }

  private static final List<Row> ROWS = new ArrayList<>();

  private static void value(String name, String expression, String expected) {
    ROWS.add(new Row(name, expression, expected, null, null));
  }

  private static void runtimeError(String name, String expression, String pattern) {
    ROWS.add(new Row(name, expression, null, pattern, null));
  }

  private static void compileError(String name, String expression, String pattern) {
    ROWS.add(new Row(name, expression, null, null, pattern));
  }

  static {
    value("parse", "quantity(\"12Mi\")", "quantity(\"12Mi\")");
    runtimeError("parseInvalidSuffix", "quantity(\"10Mo\")", "quantities must match the regular expression.*");
    runtimeError("parseInvalidSuffixPassesRegex", "quantity(\"10Mm\")", "unable to parse quantity's suffix");
    value("isQuantity", "isQuantity(\"20\")", "true");
    value("isQuantity_megabytes", "isQuantity(\"20M\")", "true");
    value("isQuantity_mebibytes", "isQuantity(\"20Mi\")", "true");
    value("isQuantity_invalidSuffix", "isQuantity(\"20Mo\")", "false");
    value("isQuantity_passingRegex", "isQuantity(\"10Mm\")", "false");
    compileError("isQuantity_noOverload", "isQuantity([1, 2, 3])", "found no matching overload for 'isQuantity' applied to.*");
    value("equality_reflexivity", "quantity(\"200M\") == quantity(\"200M\")", "true");
    value("equality_symmetry", "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")", "true");
    value("equality_transitivity", "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && quantity(\"0.002G\") == quantity(\"2000k\")", "true");
    value("inequality", "quantity(\"200M\") == quantity(\"0.3G\")", "false");
    value("quantity_less", "quantity(\"50M\").isLessThan(quantity(\"50Mi\"))", "true");
    value("quantity_less_obvious", "quantity(\"50M\").isLessThan(quantity(\"100M\"))", "true");
    value("quantity_less_false", "quantity(\"100M\").isLessThan(quantity(\"50M\"))", "false");
    value("quantity_greater", "quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))", "true");
    value("quantity_greater_obvious", "quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\"))", "true");
    value("quantity_greater_false", "quantity(\"50M\").isGreaterThan(quantity(\"100M\"))", "false");
    value("compare_equal", "quantity(\"200M\").compareTo(quantity(\"0.2G\"))", "0");
    value("compare_less", "quantity(\"50M\").compareTo(quantity(\"50Mi\"))", "-1");
    value("compare_greater", "quantity(\"50Mi\").compareTo(quantity(\"50M\"))", "1");
    value("add_quantity", "quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")", "true");
    value("add_int", "quantity(\"50k\").add(20).isLessThan(quantity(\"50020\"))", "false");
    value("sub_quantity", "quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")", "true");
    value("sub_int", "quantity(\"50k\").sub(20) == quantity(\"49980\")", "true");
    value("arith_chain_1", "quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger()", "-49980");
    value("arith_chain", "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger()", "20");
    value("as_integer", "quantity(\"50k\").asInteger()", "50000");
    runtimeError("as_integer_error", "quantity(\"9999999999999999999999999999999999999G\").asInteger()", "cannot convert value to integer");
    value("is_integer", "quantity(\"9999999999999999999999999999999999999G\").isInteger()", "false");
    value("is_integer", "quantity(\"50\").isInteger()", "true");
    value("as_float", "quantity(\"50.703k\").asApproximateFloat()", "50703.0");
    value("add_does_not_mutate_receiver", "[quantity(\"9999999999999999999999999999999999999\")].all(x, x.add(quantity(\"1\")).compareTo(x.add(quantity(\"2\"))) == -1)", "true");
  }

  static Stream<Row> rows() {
    return ROWS.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void behavesAsTheApiserver(Row r) throws Exception {
    if (r.compileError() != null) {
      assertThatThrownBy(() -> ENV.compile("[" + r.expression() + "].size() == 1"))
          .hasMessageMatching("(?s).*" + r.compileError() + ".*");
      return;
    }
    if (r.runtimeError() != null) {
      SelectorResult result = ENV.compile("[" + r.expression() + "].size() == 1").evaluate(NO_DEVICE);
      assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
      assertThat(result.error()).containsPattern(r.runtimeError());
      return;
    }
    SelectorResult result = ENV.compile("(" + r.expression() + ") == (" + r.expected() + ")").evaluate(NO_DEVICE);
    assertThat(result.error()).isNull();
    assertThat(result.outcome()).isEqualTo(Outcome.MATCH);
  }
}
