package io.nodeatlas.cdi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The file path of {@code cdi validate}: any bytes in a spec file end in a spec with its problems or in one
 * parse or limit problem, never in an exception or a JVM error. Seeds under
 * {@code CdiValidatorFuzzTestInputs/} (deep nesting, many devices, odd bytes); JAZZER_FUZZ=1 fuzzes.
 */
class CdiValidatorFuzzTest {

  private static final CdiValidator VALIDATOR = new CdiValidator();

  @FuzzTest(maxDuration = "30s")
  void anyFileIsValidatedOrRefusedWithOneProblem(byte[] data) throws Exception {
    Path file = Files.createTempFile("fuzz-", ".json");
    try {
      Files.write(file, data);
      CdiValidator.LoadedFile loaded = VALIDATOR.load(file);
      if (loaded.problem() != null) {
        if (loaded.spec() != null || loaded.problem().message().isBlank()) {
          throw new AssertionError("a refused file has one problem and no spec: " + loaded);
        }
        return;
      }
      List<CdiProblem> problems = VALIDATOR.validate(loaded.spec(), file.toString());
      if (problems.size() > CdiValidator.MAX_PROBLEMS_PER_SPEC + 1) {
        throw new AssertionError("more problems than the bound: " + problems.size());
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
