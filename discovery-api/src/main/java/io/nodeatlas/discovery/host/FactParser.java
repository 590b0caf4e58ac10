package io.nodeatlas.discovery.host;

/**
 * A pure parser of one host fact: text in, value out. Malformed text is an
 * {@link IllegalArgumentException} whose message says what was expected; {@link FactReader} turns it
 * into one warning naming the file. Returning null means "present but says nothing" (an absent fact,
 * no warning).
 */
@FunctionalInterface
public interface FactParser<T> {
  T parse(String text);
}
