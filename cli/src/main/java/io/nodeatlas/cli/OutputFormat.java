package io.nodeatlas.cli;

/** Output formats of {@code discover} and friends. */
public enum OutputFormat {
  JSON,
  YAML,
  TABLE,
  /** A terminal tree of the machine, its PCI tree and devices ({@code discover -o tree}). */
  TREE,
  /** A self-contained SVG drawing of the same ({@code discover -o svg}). */
  SVG
}
