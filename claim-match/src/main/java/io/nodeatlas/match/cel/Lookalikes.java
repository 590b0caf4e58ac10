package io.nodeatlas.match.cel;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names that differ from a published one only by look-alike or invisible characters: {@code nodeаtlas.io}
 * with a Cyrillic {@code а}, {@code type} with a zero-width space, fullwidth {@code ｔｙｐｅ}. CEL compares
 * map keys by code point, so such a selector fails at run time with a bare "no such key"; here it gets a
 * did-you-mean that names the odd code points.
 *
 * <p>A name typed in plain ASCII gets a did-you-mean for the one published name within a small edit
 * distance (letters swapped, dropped, added or changed: {@code prodcutName} for {@code productName}), as
 * kubectl and git suggest commands.
 *
 * <p>Two names are confusable when their skeletons are equal: NFKC (which folds fullwidth and other
 * compatibility forms, Unicode UAX #15), invisible format characters removed, and the common Cyrillic and
 * Greek letters that look like Latin ones mapped to them (a small table after Unicode UTS #39's
 * confusables, enough for DNS names and C identifiers).
 */
public final class Lookalikes {

  private static final Map<Integer, Character> LATIN = Map.ofEntries(
      // Cyrillic small and capital letters drawn like Latin ones.
      Map.entry(0x0430, 'a'), Map.entry(0x0435, 'e'), Map.entry(0x043E, 'o'), Map.entry(0x0440, 'p'),
      Map.entry(0x0441, 'c'), Map.entry(0x0443, 'y'), Map.entry(0x0445, 'x'), Map.entry(0x0456, 'i'),
      Map.entry(0x0458, 'j'), Map.entry(0x0455, 's'), Map.entry(0x04BB, 'h'), Map.entry(0x0501, 'd'),
      Map.entry(0x0410, 'A'), Map.entry(0x0412, 'B'), Map.entry(0x0415, 'E'), Map.entry(0x041A, 'K'),
      Map.entry(0x041C, 'M'), Map.entry(0x041D, 'H'), Map.entry(0x041E, 'O'), Map.entry(0x0420, 'P'),
      Map.entry(0x0421, 'C'), Map.entry(0x0422, 'T'), Map.entry(0x0425, 'X'), Map.entry(0x0406, 'I'),
      // Greek.
      Map.entry(0x03BF, 'o'), Map.entry(0x03B1, 'a'), Map.entry(0x03BD, 'v'), Map.entry(0x03B9, 'i'),
      Map.entry(0x039F, 'O'), Map.entry(0x0391, 'A'), Map.entry(0x0392, 'B'), Map.entry(0x0395, 'E'),
      Map.entry(0x0397, 'H'), Map.entry(0x0399, 'I'), Map.entry(0x039A, 'K'), Map.entry(0x039C, 'M'),
      Map.entry(0x039D, 'N'), Map.entry(0x03A1, 'P'), Map.entry(0x03A4, 'T'), Map.entry(0x03A7, 'X'),
      // Dotless i, and the hyphens and dots people paste from documents.
      Map.entry(0x0131, 'i'), Map.entry(0x2010, '-'), Map.entry(0x2011, '-'), Map.entry(0x2012, '-'),
      Map.entry(0x2013, '-'), Map.entry(0x2212, '-'), Map.entry(0x00B7, '.'), Map.entry(0x2024, '.'));

  private Lookalikes() {}

  /** Zero-width and other invisible format characters (general category Cf, soft hyphen included). */
  static boolean invisible(int cp) {
    return Character.getType(cp) == Character.FORMAT;
  }

  /** The comparison form of a name. */
  public static String skeleton(String name) {
    String folded = Normalizer.normalize(name, Normalizer.Form.NFKC);
    StringBuilder out = new StringBuilder(folded.length());
    folded.codePoints().forEach(cp -> {
      if (invisible(cp)) {
        return;
      }
      Character latin = LATIN.get(cp);
      if (latin != null) {
        out.append(latin.charValue());
      } else {
        out.appendCodePoint(cp);
      }
    });
    return out.toString();
  }

  /**
   * When {@code used} is not one of {@code published} but looks like one: {@code did you mean "x"? "y" has
   * U+0430 CYRILLIC SMALL LETTER A at character 5}.
   */
  public static Optional<String> didYouMean(String used, Collection<String> published) {
    if (published.contains(used)) {
      return Optional.empty();
    }
    if (used.chars().allMatch(c -> c < 0x80)) {
      return closest(used, published).map(c -> "did you mean " + quote(c) + "?");
    }
    String skeleton = skeleton(used);
    for (String candidate : published) {
      if (skeleton(candidate).equals(skeleton)) {
        return Optional.of("did you mean " + quote(candidate) + "? " + quote(used) + " has " + oddCodePoints(used));
      }
    }
    return Optional.empty();
  }

  /**
   * The one published name nearest to {@code used} by optimal-string-alignment distance (an adjacent swap
   * counts one), when that distance is small for the name's length: 1 up to 6 characters, else 2;
   * none for names of 3 characters or fewer, or when two names are equally near.
   */
  static Optional<String> closest(String used, Collection<String> published) {
    int limit = used.length() <= 3 ? 0 : used.length() <= 6 ? 1 : 2;
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    boolean tie = false;
    for (String candidate : published) {
      if (Math.abs(candidate.length() - used.length()) > limit || candidate.length() > 256) {
        continue;
      }
      int d = distance(used, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
        tie = false;
      } else if (d == bestDistance) {
        tie = true;
      }
    }
    return best != null && bestDistance <= limit && bestDistance > 0 && !tie ? Optional.of(best) : Optional.empty();
  }

  /** Optimal string alignment distance ({@link io.nodeatlas.discovery.parse.EditDistance}). */
  static int distance(String a, String b) {
    return io.nodeatlas.discovery.parse.EditDistance.of(a, b);
  }

  /** Every code point outside printable ASCII, with its Unicode name and 1-based character position. */
  static String oddCodePoints(String s) {
    List<String> out = new ArrayList<>();
    int position = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      position++;
      if (cp < 0x20 || cp > 0x7e) {
        String name = Character.getName(cp);
        out.add(String.format("U+%04X %s at character %d", cp, name == null ? "(unnamed)" : name, position));
      }
      i += Character.charCount(cp);
    }
    return String.join(", ", out);
  }

  /** The name quoted, with invisible characters shown as escapes so the message shows where they are. */
  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    s.codePoints().forEach(cp -> {
      if (invisible(cp) || cp < 0x20) {
        out.append(String.format("\\u%04x", cp));
      } else {
        out.appendCodePoint(cp);
      }
    });
    return out.append('"').toString();
  }
}
