package io.nodeatlas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code nodeatlas --help} as picocli prints it plainly for the whole command tree, kept as the resource
 * {@code help.txt} for {@link HotPath}; TopLevelHelpTest fails when picocli's answer and it differ.
 */
final class TopLevelHelp {

  static final String RESOURCE = "help.txt";

  private TopLevelHelp() {}

  /** The help text with this platform's line separator; null when the resource is missing. */
  static String text() {
    try (InputStream in = TopLevelHelp.class.getResourceAsStream(RESOURCE)) {
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
