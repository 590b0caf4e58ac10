package io.nodeatlas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code nodeatlas --help} as picocli prints it for the whole command tree at its default width, plain
 * ({@code help.txt}) and in colour ({@code help-ansi.txt}), for {@link HotPath}; TopLevelHelpTest fails
 * when picocli's answers and these differ.
 */
final class TopLevelHelp {

  static final String PLAIN = "help.txt";
  static final String COLOUR = "help-ansi.txt";

  private TopLevelHelp() {}

  /** The help text with this platform's line separator; null when the resource is missing. */
  static String text(boolean colour) {
    try (InputStream in = TopLevelHelp.class.getResourceAsStream(colour ? COLOUR : PLAIN)) {
      if (in == null) {
        return null;
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return System.lineSeparator().equals("\n") ? text : text.replace("\n", System.lineSeparator());
    } catch (IOException e) {
      return null;
    }
  }
}
