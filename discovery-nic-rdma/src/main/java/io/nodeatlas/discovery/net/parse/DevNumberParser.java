package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.DevNumber;

/**
 * A class device's {@code dev} file: {@code "%u:%u\n"}, major and minor in decimal (libibverbs reads
 * it with {@code sscanf "%u:%u"}). Linux majors are 12 bits and minors 20 bits ({@code MINORBITS}).
 */
public final class DevNumberParser {

  private DevNumberParser() {}

  public static DevNumber parse(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw Expected.but("\"<major>:<minor>\"", text);
    }
    long major = Numbers.parseDecimal(text.substring(0, colon), 0, (1 << 12) - 1);
    long minor = Numbers.parseDecimal(text.substring(colon + 1), 0, (1 << 20) - 1);
    return new DevNumber(major, minor);
  }
}
