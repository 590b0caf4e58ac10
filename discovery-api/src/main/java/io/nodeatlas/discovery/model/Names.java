package io.nodeatlas.discovery.model;


/**
 * Name rules of the ResourceSlice API ({@code resource.k8s.io/v1} validation of device, attribute and capacity names), shared by the device
 * model, the CDI writer and the publisher so that a name is checked once, where it is made.
 */
public final class Names {

  /**
   * Our own domain: the qualifier of our attribute and capacity names, the default DRA driver name
   * ({@code --driver-name}), the CDI vendor and the prefix of everything else we name. Written once,
   * here.
   */
  public static final String DOMAIN = "nodeatlas.io";

  /** The default DRA driver name ({@code ResourceSlice.spec.driver}, {@code DeviceClass} selectors' {@code device.driver}). */
  public static final String DRIVER = DOMAIN;

  /** Kubernetes' standard attributes (DRALIB {@code deviceattribute}, KEP-6072). */
  public static final String STANDARD_DOMAIN = "resource.kubernetes.io";

  public static final String NUMA_NODE = STANDARD_DOMAIN + "/numaNode";
  public static final String PCIE_ROOT = STANDARD_DOMAIN + "/pcieRoot";
  public static final String PCI_BUS_ID = STANDARD_DOMAIN + "/pciBusID";


  /** DeviceMaxIDLength: the identifier part of a qualified name. */
  public static final int MAX_IDENTIFIER_LENGTH = 32;

  private Names() {}

  /** A name in our own domain, e.g. {@code nodeatlas.io/type}. */
  public static String ours(String identifier) {
    return DOMAIN + "/" + identifier;
  }

  /**
   * A DNS-1123 label ({@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, at most 63 characters). Checked by hand:
   * it runs for every device and attribute of every discovery, thousands on a node with many VFs.
   */
  public static boolean isDnsLabel(String name) {
    return name != null && name.length() <= 63 && isLabel(name, 0, name.length());
  }

  /**
   * A DNS-1123 subdomain: dot-separated labels, at most 253 characters in all. Like the API's
   * {@code IsDNS1123Subdomain}, the labels themselves are not limited to 63 characters.
   */
  public static boolean isDnsSubdomain(String name) {
    return name != null && isDnsSubdomain(name, 0, name.length());
  }

  /** {@link #isDnsSubdomain(String)} of {@code s.substring(from, to)}, without making that string. */
  private static boolean isDnsSubdomain(String s, int from, int to) {
    if (to == from || to - from > 253) {
      return false;
    }
    int start = from;
    for (int i = from; i <= to; i++) {
      if (i == to || s.charAt(i) == '.') {
        if (!isLabel(s, start, i)) {
          return false;
        }
        start = i + 1;
      }
    }
    return true;
  }

  private static boolean isLabel(String s, int from, int to) {
    int n = to - from;
    if (n < 1 || !isAlnum(s.charAt(from)) || !isAlnum(s.charAt(to - 1))) {
      return false;
    }
    for (int i = from + 1; i < to - 1; i++) {
      char c = s.charAt(i);
      if (!isAlnum(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean isAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  /** A C identifier ({@code [A-Za-z_][A-Za-z0-9_]*}). */
  static boolean isCIdentifier(String s) {
    return isCIdentifier(s, 0, s.length());
  }

  /** {@link #isCIdentifier(String)} of {@code s.substring(from, to)}, without making that string. */
  private static boolean isCIdentifier(String s, int from, int to) {
    if (to == from) {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      if (!letter && (i == from || c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }

  /** Device names must be DNS-1123 labels, unique in their pool. */
  public static String requireDeviceName(String name) {
    if (!isDnsLabel(name)) {
      throw new IllegalArgumentException(
          "device name \"" + name + "\" is not a DNS label (lower-case letters, digits and '-', at most 63 characters)");
    }
    return name;
  }

  /**
   * An attribute or capacity name: {@code <C identifier>} or {@code <domain>/<C identifier>}, identifier at
   * most 32 characters, domain a DNS subdomain of at most 63 characters, never more than one {@code /}.
   */
  public static String requireQualifiedName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("attribute name must not be empty");
    }
    // Checked in place: every attribute of every device is checked (twice: by the draft and by the
    // device), so substrings here were 5% of a 4,096-VF discovery's allocation. They are made only
    // for a message.
    int slash = name.indexOf('/');
    if (slash >= 0 && (slash > 63 || !isDnsSubdomain(name, 0, slash))) {
      throw new IllegalArgumentException("attribute name \"" + name + "\": domain \"" + name.substring(0, slash)
          + "\" is not a DNS subdomain of at most 63 characters");
    }
    int identifier = slash + 1;
    if (name.length() - identifier > MAX_IDENTIFIER_LENGTH || !isCIdentifier(name, identifier, name.length())) {
      throw new IllegalArgumentException(
          "attribute name \"" + name + "\": \"" + name.substring(identifier)
              + "\" is not a C identifier of at most " + MAX_IDENTIFIER_LENGTH + " characters");
    }
    return name;
  }

  /**
   * Turns any text (an interface name, a PCI address, a model) into a DNS label fragment: lower case,
   * runs of other characters folded to one {@code -}, trimmed of leading and trailing {@code -}.
   */
  public static String toLabelFragment(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean dash = false;
    for (int i = 0; i < text.length(); i++) {
      char c = Character.toLowerCase(text.charAt(i));
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        out.append(c);
        dash = false;
      } else if (!dash && out.length() > 0) {
        out.append('-');
        dash = true;
      }
    }
    int end = out.length();
    while (end > 0 && out.charAt(end - 1) == '-') {
      end--;
    }
    return out.substring(0, end);
  }
}
