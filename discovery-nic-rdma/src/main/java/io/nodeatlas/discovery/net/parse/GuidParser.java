package io.nodeatlas.discovery.net.parse;

import java.util.Locale;
import java.util.regex.Pattern;

/** {@code node_guid} and {@code sys_image_guid}: {@code %04x:%04x:%04x:%04x}, kept as sysfs prints it. */
public final class GuidParser {

  private static final Pattern GUID = Pattern.compile("^[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}$");

  private GuidParser() {}

  public static String parse(String what, String text) {
    if (!GUID.matcher(text).matches()) {
      throw SysfsFormatException.of(what, text, "a GUID of the form xxxx:xxxx:xxxx:xxxx");
    }
    return text.toLowerCase(Locale.ROOT);
  }
}
