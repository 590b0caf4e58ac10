package io.nodeatlas.cli;

/**
 * {@code nodeatlas --help} as picocli prints it for the whole command tree at its default width, plain
 * and in colour, for {@link HotPath}: constants of {@link TopLevelHelpText}, which TopLevelHelpTest
 * writes from picocli's answers and fails on when they differ (a class constant, as reading a resource
 * starts the JDK's module image reader, which cost a cold {@code --help} more than the rest of it).
 */
final class TopLevelHelp {

  private TopLevelHelp() {}

  /** The help text with this platform's line separator. */
  static String text(boolean colour) {
    String text = colour ? TopLevelHelpText.COLOUR : TopLevelHelpText.PLAIN;
    return System.lineSeparator().equals("\n") ? text : text.replace("\n", System.lineSeparator());
  }
}
