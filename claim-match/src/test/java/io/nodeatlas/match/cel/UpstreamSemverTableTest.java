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
 * The apiserver's semver table, case by case: k8s.io/apiserver {@code pkg/cel/library/semver_test.go}
 * ({@code TestSemver}, HEAD of 2026-07-23; its rows run at library version 0 or 1, and base.go gives DRA
 * version 1, which accepts both). A value row holds when {@code (expression) == (expected)}; an error
 * row when evaluation fails with a message matching upstream's pattern; a compile-error row when the checker
 * refuses it. None is left out.
 */
class UpstreamSemverTableTest {

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
    value("parse", "semver(\"1.2.3\")", "semver(\"1.2.3\")");
    runtimeError("parseInvalidVersion", "semver(\"v1.0\")", "No Major.Minor.Patch elements found");
    value("isSemver", "isSemver(\"1.2.3-beta.1+build.1\")", "true");
    value("isSemver_empty_false", "isSemver(\"\")", "false");
    value("isSemver_v_prefix_false", "isSemver(\"v1.0.0\")", "false");
    value("isSemver_v_leading_whitespace_false", "isSemver(\" 1.0.0\")", "false");
    value("isSemver_v_contains_whitespace_false", "isSemver(\"1. 0.0\")", "false");
    value("isSemver_v_trailing_whitespace_false", "isSemver(\"1.0.0 \")", "false");
    value("isSemver_leading_zeros_false", "isSemver(\"01.01.01\")", "false");
    value("isSemver_major_only_false", "isSemver(\"1\")", "false");
    value("isSemver_major_minor_only_false", "isSemver(\"1.1\")", "false");
    value("isSemver_empty_normalize_false", "isSemver(\"\", true)", "false");
    value("isSemver_v_leading_whitespace_normalize_false", "isSemver(\" 1.0.0\", true)", "false");
    value("isSemver_v_contains_whitespace_normalize_false", "isSemver(\"1. 0.0\", true)", "false");
    value("isSemver_v_trailing_whitespace_normalize_false", "isSemver(\"1.0.0 \", true)", "false");
    value("isSemver_v_prefix_normalize_true", "isSemver(\"v1.0.0\", true)", "true");
    value("isSemver_leading_zeros_normalize_true", "isSemver(\"01.01.01\", true)", "true");
    value("isSemver_major_only_normalize_true", "isSemver(\"1\", true)", "true");
    value("isSemver_major_minor_only_normalize_true", "isSemver(\"1.1\", true)", "true");
    compileError("isSemver_noOverload", "isSemver([1, 2, 3])", "found no matching overload for 'isSemver' applied to.*");
    value("equality_normalize", "semver(\"v01.01\", true) == semver(\"1.1.0\")", "true");
    value("equality_reflexivity", "semver(\"1.2.3\") == semver(\"1.2.3\")", "true");
    value("inequality", "semver(\"1.2.3\") == semver(\"1.0.0\")", "false");
    value("semver_less", "semver(\"1.0.0\").isLessThan(semver(\"1.2.3\"))", "true");
    value("semver_less_false", "semver(\"1.0.0\").isLessThan(semver(\"1.0.0\"))", "false");
    value("semver_greater", "semver(\"1.2.3\").isGreaterThan(semver(\"1.0.0\"))", "true");
    value("semver_greater_false", "semver(\"1.0.0\").isGreaterThan(semver(\"1.0.0\"))", "false");
    value("compare_equal", "semver(\"1.2.3\").compareTo(semver(\"1.2.3\"))", "0");
    value("compare_less", "semver(\"1.0.0\").compareTo(semver(\"1.2.3\"))", "-1");
    value("compare_greater", "semver(\"1.2.3\").compareTo(semver(\"1.0.0\"))", "1");
    value("major", "semver(\"1.2.3\").major()", "1");
    value("minor", "semver(\"1.2.3\").minor()", "2");
    value("patch", "semver(\"1.2.3\").patch()", "3");
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
