package io.nodeatlas.discovery.accel.parse;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Device names from the text of a PCI ids database ({@code pci.ids}, maintained by The PCI ID
 * Repository and shipped by the {@code pci.ids}/{@code hwdata} packages), as its header describes the
 * format: a vendor line {@code vvvv  name} at the start of a line, its device lines
 * {@code <TAB>dddd  name}, their subsystem lines {@code <TAB><TAB>vvvv dddd  name}, comments starting
 * with {@code #}, and after every vendor the class section, whose lines start with {@code C }.
 *
 * <p>Only what is asked for is kept: the text is scanned line by line in place (no split, no copy of
 * the file's lines), device lines of vendors nobody asked about are passed over, and the scan stops
 * at the class section or as soon as every wanted name was found. A malformed line costs that line
 * (it is counted, so the caller can warn once); a text without a single vendor line is not a
 * {@code pci.ids} database at all.
 */
public final class PciIdsDatabase {

  /** No line of the real database comes near this; a longer one is not part of the format. */
  public static final int MAX_LINE_CHARS = 512;

  private PciIdsDatabase() {}

  /** A vendor and device id, both 4 lower-case hex digits as {@code PciIds.hexId} gives them. */
  public record DeviceKey(String vendorId, String deviceId) implements Comparable<DeviceKey> {
    public DeviceKey {
      if (!isHex4(vendorId) || !isHex4(deviceId)) {
        throw new IllegalArgumentException("PCI ids are 4 lower-case hex digits: " + vendorId + ":" + deviceId);
      }
    }

    @Override
    public int compareTo(DeviceKey o) {
      int c = vendorId.compareTo(o.vendorId);
      return c != 0 ? c : deviceId.compareTo(o.deviceId);
    }
  }

  /**
   * The names found for the wanted devices, and the malformed lines met on the way.
   *
   * @param firstMalformedLine line number (1-based) of the first malformed line; 0 when none
   */
  public record Names(Map<DeviceKey, String> deviceNames, int malformedLines, int firstMalformedLine) {
    public Names {
      deviceNames = Collections.unmodifiableMap(new TreeMap<>(deviceNames));
    }
  }

  /** The names of {@code wanted} in {@code text}; throws when the text has no vendor line at all. */
  public static Names lookup(CharSequence text, Set<DeviceKey> wanted) {
    if (wanted.isEmpty()) {
      return new Names(Map.of(), 0, 0);
    }
    Set<String> wantedVendors = new HashSet<>();
    for (DeviceKey k : wanted) {
      wantedVendors.add(k.vendorId());
    }
    Map<DeviceKey, String> found = new TreeMap<>();
    int malformed = 0;
    int firstMalformed = 0;
    boolean sawVendor = false;
    String vendor = null; // the current vendor, when it is a wanted one
    int lineNumber = 0;
    int length = text.length();
    int start = 0;
    while (start < length && found.size() < wanted.size()) {
      int end = indexOf(text, '\n', start);
      if (end < 0) {
        end = length;
      }
      lineNumber++;
      int lineEnd = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
      Kind kind = classify(text, start, lineEnd);
      if (kind == Kind.CLASSES) {
        break; // the class section follows every vendor
      }
      switch (kind) {
        case VENDOR -> {
          sawVendor = true;
          String id = lower(text, start, start + 4);
          vendor = wantedVendors.contains(id) ? id : null;
        }
        case DEVICE -> {
          if (vendor != null) {
            String id = lower(text, start + 1, start + 5);
            DeviceKey key = new DeviceKey(vendor, id);
            if (wanted.contains(key)) {
              String name = name(text, start + 7, lineEnd);
              if (name == null) {
                malformed++;
                firstMalformed = firstMalformed == 0 ? lineNumber : firstMalformed;
              } else {
                found.putIfAbsent(key, name);
              }
            }
          }
        }
        case MALFORMED -> {
          malformed++;
          firstMalformed = firstMalformed == 0 ? lineNumber : firstMalformed;
        }
        default -> { } // comment, blank, subsystem line, a device line under a vendor not asked about
      }
      start = end + 1;
    }
    if (!sawVendor && found.isEmpty()) {
      throw new IllegalArgumentException("not a pci.ids database: no vendor line (\"vvvv  name\") before "
          + (start >= length ? "the end" : "line " + lineNumber));
    }
    return new Names(found, malformed, firstMalformed);
  }

  private enum Kind {
    BLANK,
    COMMENT,
    VENDOR,
    DEVICE,
    SUBSYSTEM,
    CLASSES,
    MALFORMED
  }

  private static Kind classify(CharSequence t, int start, int end) {
    int n = end - start;
    if (n == 0 || isBlank(t, start, end)) {
      return Kind.BLANK;
    }
    if (n > MAX_LINE_CHARS) {
      return Kind.MALFORMED;
    }
    char first = t.charAt(start);
    if (first == '#') {
      return Kind.COMMENT;
    }
    if (first == 'C' && n > 1 && t.charAt(start + 1) == ' ') {
      return Kind.CLASSES;
    }
    if (first == '\t') {
      if (n > 1 && t.charAt(start + 1) == '\t') {
        // <TAB><TAB>vvvv dddd  name
        return n > 13 && hex4(t, start + 2) && t.charAt(start + 6) == ' ' && hex4(t, start + 7)
            && t.charAt(start + 11) == ' ' && t.charAt(start + 12) == ' ' ? Kind.SUBSYSTEM : Kind.MALFORMED;
      }
      // <TAB>dddd  name
      return n > 7 && hex4(t, start + 1) && t.charAt(start + 5) == ' ' && t.charAt(start + 6) == ' '
          ? Kind.DEVICE : Kind.MALFORMED;
    }
    // vvvv  name
    return n > 6 && hex4(t, start) && t.charAt(start + 4) == ' ' && t.charAt(start + 5) == ' '
        ? Kind.VENDOR : Kind.MALFORMED;
  }

  /** The name in {@code t[start, end)}: trimmed, non-empty and printable, else null. */
  private static String name(CharSequence t, int start, int end) {
    String name = t.subSequence(start, end).toString().strip();
    return name.isEmpty() || !Excerpt.isPrintable(name) ? null : name;
  }

  private static boolean isBlank(CharSequence t, int start, int end) {
    for (int i = start; i < end; i++) {
      if (!Character.isWhitespace(t.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(CharSequence t, char c, int from) {
    if (t instanceof String s) {
      return s.indexOf(c, from);
    }
    for (int i = from; i < t.length(); i++) {
      if (t.charAt(i) == c) {
        return i;
      }
    }
    return -1;
  }

  private static boolean hex4(CharSequence t, int at) {
    if (at + 4 > t.length()) {
      return false;
    }
    for (int i = at; i < at + 4; i++) {
      char c = t.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isHex4(String s) {
    if (s == null || s.length() != 4) {
      return false;
    }
    for (int i = 0; i < 4; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static String lower(CharSequence t, int from, int to) {
    return t.subSequence(from, to).toString().toLowerCase(java.util.Locale.ROOT);
  }
}
