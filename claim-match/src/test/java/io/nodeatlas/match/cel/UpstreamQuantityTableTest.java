package io.nodeatlas.match.cel;

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

  private static final LibraryTable TABLE = new LibraryTable();

  static {
    TABLE.value("parse", "quantity(\"12Mi\")", "quantity(\"12Mi\")");
    TABLE.runtimeError("parseInvalidSuffix", "quantity(\"10Mo\")", "quantities must match the regular expression.*");
    TABLE.runtimeError("parseInvalidSuffixPassesRegex", "quantity(\"10Mm\")", "unable to parse quantity's suffix");
    TABLE.value("isQuantity", "isQuantity(\"20\")", "true");
    TABLE.value("isQuantity_megabytes", "isQuantity(\"20M\")", "true");
    TABLE.value("isQuantity_mebibytes", "isQuantity(\"20Mi\")", "true");
    TABLE.value("isQuantity_invalidSuffix", "isQuantity(\"20Mo\")", "false");
    TABLE.value("isQuantity_passingRegex", "isQuantity(\"10Mm\")", "false");
    TABLE.compileError("isQuantity_noOverload", "isQuantity([1, 2, 3])", "found no matching overload for 'isQuantity' applied to.*");
    TABLE.value("equality_reflexivity", "quantity(\"200M\") == quantity(\"200M\")", "true");
    TABLE.value("equality_symmetry", "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")", "true");
    TABLE.value("equality_transitivity", "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && quantity(\"0.002G\") == quantity(\"2000k\")", "true");
    TABLE.value("inequality", "quantity(\"200M\") == quantity(\"0.3G\")", "false");
    TABLE.value("quantity_less", "quantity(\"50M\").isLessThan(quantity(\"50Mi\"))", "true");
    TABLE.value("quantity_less_obvious", "quantity(\"50M\").isLessThan(quantity(\"100M\"))", "true");
    TABLE.value("quantity_less_false", "quantity(\"100M\").isLessThan(quantity(\"50M\"))", "false");
    TABLE.value("quantity_greater", "quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))", "true");
    TABLE.value("quantity_greater_obvious", "quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\"))", "true");
    TABLE.value("quantity_greater_false", "quantity(\"50M\").isGreaterThan(quantity(\"100M\"))", "false");
    TABLE.value("compare_equal", "quantity(\"200M\").compareTo(quantity(\"0.2G\"))", "0");
    TABLE.value("compare_less", "quantity(\"50M\").compareTo(quantity(\"50Mi\"))", "-1");
    TABLE.value("compare_greater", "quantity(\"50Mi\").compareTo(quantity(\"50M\"))", "1");
    TABLE.value("add_quantity", "quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")", "true");
    TABLE.value("add_int", "quantity(\"50k\").add(20).isLessThan(quantity(\"50020\"))", "false");
    TABLE.value("sub_quantity", "quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")", "true");
    TABLE.value("sub_int", "quantity(\"50k\").sub(20) == quantity(\"49980\")", "true");
    TABLE.value("arith_chain_1", "quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger()", "-49980");
    TABLE.value("arith_chain", "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger()", "20");
    TABLE.value("as_integer", "quantity(\"50k\").asInteger()", "50000");
    TABLE.runtimeError("as_integer_error", "quantity(\"9999999999999999999999999999999999999G\").asInteger()", "cannot convert value to integer");
    TABLE.value("is_integer", "quantity(\"9999999999999999999999999999999999999G\").isInteger()", "false");
    TABLE.value("is_integer", "quantity(\"50\").isInteger()", "true");
    TABLE.value("as_float", "quantity(\"50.703k\").asApproximateFloat()", "50703.0");
    TABLE.value("add_does_not_mutate_receiver", "[quantity(\"9999999999999999999999999999999999999\")].all(x, x.add(quantity(\"1\")).compareTo(x.add(quantity(\"2\"))) == -1)", "true");
  }

  static Stream<LibraryTable.Row> rows() {
    return TABLE.rows();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void behavesAsTheApiserver(LibraryTable.Row r) throws Exception {
    LibraryTable.check(r, ENV::compile, false);
  }
}
