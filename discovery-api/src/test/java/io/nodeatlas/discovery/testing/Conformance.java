package io.nodeatlas.discovery.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Locates the shared conformance corpora ({@code ../shared/conformance}, overridable with the system
 * property {@code nodeatlas.conformance.dir}). Without the corpus the tests skip with a message;
 * CI sets {@code nodeatlas.conformance.required=true}, which turns a missing corpus into a failure.
 */
public final class Conformance {

  public static final String DIR_PROPERTY = "nodeatlas.conformance.dir";
  public static final String REQUIRED_PROPERTY = "nodeatlas.conformance.required";

  private Conformance() {}

  /** The corpus folder {@code name} (e.g. {@code hwloc-linux}), or the test is skipped (or failed in CI). */
  public static Path corpus(String name) {
    String dir = System.getProperty(DIR_PROPERTY, "../shared/conformance");
    Path path = Path.of(dir).resolve(name).toAbsolutePath().normalize();
    boolean present = Files.isDirectory(path);
    if (!present && Boolean.getBoolean(REQUIRED_PROPERTY)) {
      throw new AssertionError("conformance corpus " + path + " is missing, and " + REQUIRED_PROPERTY + "=true");
    }
    Assumptions.assumeTrue(present, () -> "conformance corpus " + path + " not found; set -D" + DIR_PROPERTY + "=DIR to run");
    return path;
  }

  /** Whether an external tool such as {@code lstopo} must be present (CI) or may be skipped (a laptop). */
  public static void requireTool(String tool, boolean available) {
    if (!available && Boolean.getBoolean(REQUIRED_PROPERTY)) {
      throw new AssertionError(tool + " is not installed, and " + REQUIRED_PROPERTY + "=true (.ci/run installs it)");
    }
    Assumptions.assumeTrue(available, () -> tool + " is not installed; skipping (apt-get install it to run)");
  }
}
