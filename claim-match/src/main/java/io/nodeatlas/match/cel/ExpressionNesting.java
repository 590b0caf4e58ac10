package io.nodeatlas.match.cel;

/**
 * Where a CEL expression nests deepest, for the position of a "too deeply nested" compile error (cel-java
 * reports its parser recursion limit without one). A linear scan outside string literals: each open
 * {@code (}, {@code [} or {@code {} is one level, and so is each binary operator or member selection
 * chained at the same level, as the parser's recursion counts them. Never used to decide anything, only
 * to point at the text.
 */
final class ExpressionNesting {

  private ExpressionNesting() {}

  /**
   * {line, column}, both 1-based: the first place where the nesting exceeds
   * {@link DraCelEnvironment#MAX_PARSE_DEPTH}, or else where it is deepest.
   */
  static int[] deepest(String expr) {
    int[] chain = new int[expr.length() + 2];
    int depth = 0;
    int best = -1;
    int bestAt = 0;
    int line = 1;
    int column = 1;
    int bestLine = 1;
    int bestColumn = 1;
    for (int i = 0; i < expr.length(); i++) {
      char c = expr.charAt(i);
      int level = -1;
      if (c == '"' || c == '\'') {
        int end = skipString(expr, i);
        for (int j = i; j < end && j < expr.length(); j++) {
          if (expr.charAt(j) == '\n') {
            line++;
            column = 1;
          } else {
            column++;
          }
        }
        i = end - 1;
        continue;
      }
      switch (c) {
        case '(', '[', '{' -> {
          depth++;
          chain[depth] = 0;
          level = depth + chain[depth - 1];
        }
        case ')', ']', '}' -> depth = Math.max(0, depth - 1);
        case '+', '-', '*', '/', '%', '.', '&', '|', '<', '>', '=', '!', '?' -> {
          chain[depth]++;
          level = depth + chain[depth];
        }
        default -> { }
      }
      if (level > best && best <= DraCelEnvironment.MAX_PARSE_DEPTH) {
        best = level;
        bestAt = i;
        bestLine = line;
        bestColumn = column;
      }
      if (c == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return best < 0 ? new int[] {1, 1} : new int[] {bestLine, bestColumn, bestAt};
  }

  /** The index just after the string literal starting at {@code start} (quotes, triple quotes, escapes). */
  private static int skipString(String s, int start) {
    char q = s.charAt(start);
    boolean triple = s.startsWith(String.valueOf(q).repeat(3), start);
    int i = start + (triple ? 3 : 1);
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == q && (!triple || s.startsWith(String.valueOf(q).repeat(3), i))) {
        return i + (triple ? 3 : 1);
      }
      if (c == '\n' && !triple) {
        return i;
      }
      i++;
    }
    return s.length();
  }
}
