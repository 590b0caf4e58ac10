package io.nodeatlas.discovery.net.model;

/** A {@code "%d: %s"} attribute such as port {@code state} ({@code 4: ACTIVE}) or {@code phys_state} ({@code 5: LinkUp}). */
public record NumberedState(int code, String name) {
  public NumberedState {
    if (name == null) {
      throw new IllegalArgumentException("state name must not be null");
    }
  }

  /** The published value: the kernel's name in lower case ({@code active}, {@code linkup}). */
  public String label() {
    return name.toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public String toString() {
    return code + ": " + name;
  }
}
