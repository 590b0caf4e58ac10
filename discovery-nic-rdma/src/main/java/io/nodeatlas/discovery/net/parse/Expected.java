package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.host.Excerpt;

/**
 * The one shape of a parse error: what the kernel prints in that file, and a short, escaped excerpt
 * of what was there. The reader prefixes the file's host path, so the message never names the file.
 */
final class Expected {

  private Expected() {}

  static IllegalArgumentException but(String expected, String text) {
    return new IllegalArgumentException("expected " + expected + ", got " + Excerpt.of(text));
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
