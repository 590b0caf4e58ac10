package io.nodeatlas.discovery.net.parse;

import java.util.Locale;

/**
 * {@code node_guid} and {@code sys_image_guid}: {@code %04x:%04x:%04x:%04x}
 * ({@code Documentation/ABI/stable/sysfs-class-infiniband}), kept as sysfs prints it, in lower case.
 * Checked by hand: it runs twice per RDMA device, and nodes have thousands of VFs.
 */
public final class GuidParser {

  private GuidParser() {}

  public static String parse(String text) {
    if (text.length() != 19) {
      throw Expected.but("a GUID of the form xxxx:xxxx:xxxx:xxxx", text);
    }
    for (int i = 0; i < 19; i++) {
      char c = text.charAt(i);
      boolean ok = (i % 5 == 4) ? c == ':' : Expected.isHex(c);
      if (!ok) {
        throw Expected.but("a GUID of the form xxxx:xxxx:xxxx:xxxx", text);
      }
    }
    return text.toLowerCase(Locale.ROOT);
  }
}
