package io.nodeatlas.cli;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * "Did you mean": the known word closest to a misspelt one, by edit distance with swaps of neighbours
 * counted as one edit ({@code prodcut} → {@code product}), case ignored. A word is offered only when
 * it is close: at most a third of its length away, and at most 3 edits.
 */
public final class Suggestions {

  private Suggestions() {}

  /** The closest of {@code known} to {@code word}, or empty when none is close; ties go to the first in order. */
  public static Optional<String> closest(String word, Collection<String> known) {
    String w = word.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(w, k.toLowerCase(Locale.ROOT));
      int allowed = Math.min(3, Math.max(1, k.length() / 3));
      if (d <= allowed && d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
  static int distance(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 3 || a.length() > 256 || b.length() > 256) {
      return Integer.MAX_VALUE; // never close; and a hostile length costs nothing
    }
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
