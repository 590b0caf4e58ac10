package io.nodeatlas.discovery.doctor;

import java.util.Objects;

/**
 * One result of a doctor check: which check, its verdict, what it saw on the node, and what to do
 * about it (empty when nothing needs doing).
 *
 * @param check a dotted name that says what was checked ({@code runtime.containerd}, {@code cdi.specs})
 */
public record Finding(String check, Verdict verdict, String saw, String fix) {

  public Finding {
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(verdict, "verdict");
    saw = saw == null ? "" : saw;
    fix = fix == null ? "" : fix;
  }

  public static Finding ok(String check, String saw) {
    return new Finding(check, Verdict.OK, saw, "");
  }

  public static Finding warn(String check, String saw, String fix) {
    return new Finding(check, Verdict.WARN, saw, fix);
  }

  public static Finding fail(String check, String saw, String fix) {
    return new Finding(check, Verdict.FAIL, saw, fix);
  }

  /** {@code 1 spec file}, {@code 2 spec files}: a count with its noun, for what a check saw. */
  public static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
