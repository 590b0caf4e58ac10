package io.nodeatlas.cli;

import io.nodeatlas.discovery.parse.EditDistance;
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

  /** Optimal string alignment distance ({@link EditDistance}); lengths far apart are never close and cost nothing. */
  static int distance(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 3 || a.length() > 256 || b.length() > 256) {
      return Integer.MAX_VALUE;
    }
    return EditDistance.of(a, b);
  }
}
