package io.nodeatlas.discovery.net.parse;

/**
 * {@code node_guid} and {@code sys_image_guid}: {@code %04x:%04x:%04x:%04x}
 * ({@code Documentation/ABI/stable/sysfs-class-infiniband}), kept as sysfs prints it, in lower case.
 */
public final class GuidParser {

  private GuidParser() {}

  public static String parse(String text) {
    return ColonHex.lowerCase(text, 4, 4, 4, "a GUID of the form xxxx:xxxx:xxxx:xxxx");
  }
}
