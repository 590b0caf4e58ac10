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

  /**
   * The value straight from a single-value file's bytes {@code text[from, to)}, trimmed of ASCII
   * whitespace and NUL and never empty, valid only during the call; null to let {@link #parse} decide
   * on the text. A result must be what {@link #parse} gives for the same value: this is for the forms
   * a kernel prints (a 256-CPU {@code shared_cpu_map} per cache) without a String per read.
   */
  default T parseBytes(byte[] text, int from, int to) {
    return null;
  }

  /** {@code text} with {@code bytes} as its {@link #parseBytes}. */
  static <T> FactParser<T> withBytes(FactParser<T> text, BytesParser<T> bytes) {
    return new FactParser<>() {
      @Override
      public T parse(String value) {
        return text.parse(value);
      }

      @Override
      public T parseBytes(byte[] value, int from, int to) {
        return bytes.parse(value, from, to);
      }
    };
  }

  /** See {@link FactParser#parseBytes}. */
  @FunctionalInterface
  interface BytesParser<T> {
    T parse(byte[] text, int from, int to);
  }
}
