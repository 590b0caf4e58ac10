package io.nodeatlas.cli;

/**
 * The lines {@code nodeatlas --version} prints: the jar manifest's {@code Implementation-Version}, or
 * {@code dev} when run from classes. Free of picocli, so {@link HotPath} can answer from the launcher's
 * small jar; {@link VersionProvider} gives picocli the same lines.
 */
final class Version {

  private Version() {}

  static String[] lines() {
    String v = Version.class.getPackage().getImplementationVersion();
    // String.concat, not +: Java 17's indy string concatenation costs a cold JVM a bootstrap.
    return new String[] {"nodeatlas ".concat(v == null ? "dev" : v)};
  }
}
