package io.nodeatlas.match.cel;

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

  private static final LibraryTable TABLE = new LibraryTable();

  static {
    TABLE.value("parse", "semver(\"1.2.3\")", "semver(\"1.2.3\")");
    TABLE.runtimeError("parseInvalidVersion", "semver(\"v1.0\")", "No Major.Minor.Patch elements found");
    TABLE.value("isSemver", "isSemver(\"1.2.3-beta.1+build.1\")", "true");
    TABLE.value("isSemver_empty_false", "isSemver(\"\")", "false");
    TABLE.value("isSemver_v_prefix_false", "isSemver(\"v1.0.0\")", "false");
    TABLE.value("isSemver_v_leading_whitespace_false", "isSemver(\" 1.0.0\")", "false");
    TABLE.value("isSemver_v_contains_whitespace_false", "isSemver(\"1. 0.0\")", "false");
    TABLE.value("isSemver_v_trailing_whitespace_false", "isSemver(\"1.0.0 \")", "false");
    TABLE.value("isSemver_leading_zeros_false", "isSemver(\"01.01.01\")", "false");
    TABLE.value("isSemver_major_only_false", "isSemver(\"1\")", "false");
    TABLE.value("isSemver_major_minor_only_false", "isSemver(\"1.1\")", "false");
    TABLE.value("isSemver_empty_normalize_false", "isSemver(\"\", true)", "false");
    TABLE.value("isSemver_v_leading_whitespace_normalize_false", "isSemver(\" 1.0.0\", true)", "false");
    TABLE.value("isSemver_v_contains_whitespace_normalize_false", "isSemver(\"1. 0.0\", true)", "false");
    TABLE.value("isSemver_v_trailing_whitespace_normalize_false", "isSemver(\"1.0.0 \", true)", "false");
    TABLE.value("isSemver_v_prefix_normalize_true", "isSemver(\"v1.0.0\", true)", "true");
    TABLE.value("isSemver_leading_zeros_normalize_true", "isSemver(\"01.01.01\", true)", "true");
    TABLE.value("isSemver_major_only_normalize_true", "isSemver(\"1\", true)", "true");
    TABLE.value("isSemver_major_minor_only_normalize_true", "isSemver(\"1.1\", true)", "true");
    TABLE.compileError("isSemver_noOverload", "isSemver([1, 2, 3])", "found no matching overload for 'isSemver' applied to.*");
    TABLE.value("equality_normalize", "semver(\"v01.01\", true) == semver(\"1.1.0\")", "true");
    TABLE.value("equality_reflexivity", "semver(\"1.2.3\") == semver(\"1.2.3\")", "true");
    TABLE.value("inequality", "semver(\"1.2.3\") == semver(\"1.0.0\")", "false");
    TABLE.value("semver_less", "semver(\"1.0.0\").isLessThan(semver(\"1.2.3\"))", "true");
    TABLE.value("semver_less_false", "semver(\"1.0.0\").isLessThan(semver(\"1.0.0\"))", "false");
    TABLE.value("semver_greater", "semver(\"1.2.3\").isGreaterThan(semver(\"1.0.0\"))", "true");
    TABLE.value("semver_greater_false", "semver(\"1.0.0\").isGreaterThan(semver(\"1.0.0\"))", "false");
    TABLE.value("compare_equal", "semver(\"1.2.3\").compareTo(semver(\"1.2.3\"))", "0");
    TABLE.value("compare_less", "semver(\"1.0.0\").compareTo(semver(\"1.2.3\"))", "-1");
    TABLE.value("compare_greater", "semver(\"1.2.3\").compareTo(semver(\"1.0.0\"))", "1");
    TABLE.value("major", "semver(\"1.2.3\").major()", "1");
    TABLE.value("minor", "semver(\"1.2.3\").minor()", "2");
    TABLE.value("patch", "semver(\"1.2.3\").patch()", "3");
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
