package io.nodeatlas.discovery.doctor;

/** How a doctor check came out: fine, worth a look, or something that stops devices reaching containers. */
public enum Verdict {
  OK,
  WARN,
  FAIL;

  /** The lower-case word the reports print. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
