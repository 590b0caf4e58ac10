package io.nodeatlas.discovery.spi;

/** Whether a source can run on this host, and if not, why (shown to the user as a warning). */
public record Availability(boolean available, String reason) {

  private static final Availability OK = new Availability(true, "");

  public static Availability ok() {
    return OK;
  }

  public static Availability unavailable(String reason) {
    return new Availability(false, reason);
  }
}
