package io.nodeatlas.cli.discover.render;

/** {@code --color}: when the tree view uses ANSI colours. */
public enum ColorMode {
  /** Colour only on a terminal, and not when {@code NO_COLOR} is set or {@code TERM} is {@code dumb}. */
  AUTO,
  /** Always, even through a pipe or with {@code NO_COLOR} set (an explicit choice wins, as no-color.org asks). */
  ALWAYS,
  /** Never. */
  NEVER;

  /** Whether to colour the output going to {@code terminal}. */
  public boolean colours(Terminal terminal) {
    return switch (this) {
      case ALWAYS -> true;
      case NEVER -> false;
      case AUTO -> terminal.interactive() && !terminal.noColor() && !terminal.dumb();
    };
  }
}
