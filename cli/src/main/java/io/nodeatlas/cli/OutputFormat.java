package io.nodeatlas.cli;

/** Output formats of {@code discover} and friends. */
public enum OutputFormat {
  JSON,
  YAML,
  TABLE
}
