package io.nodeatlas.discovery.model;

import java.util.regex.Pattern;

/**
 * Name rules of the ResourceSlice API (shared/reference/dra-api.md §3.2–3.3), shared by the device
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

  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern C_IDENTIFIER = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");

  /** DeviceMaxIDLength: the identifier part of a qualified name. */
  public static final int MAX_IDENTIFIER_LENGTH = 32;

  private Names() {}

  /** A name in our own domain, e.g. {@code nodeatlas.io/type}. */
  public static String ours(String identifier) {
    return DOMAIN + "/" + identifier;
  }

  public static boolean isDnsLabel(String name) {
    return name != null && name.length() <= 63 && DNS_LABEL.matcher(name).matches();
  }

  public static boolean isDnsSubdomain(String name) {
    return name != null && name.length() <= 253 && DNS_SUBDOMAIN.matcher(name).matches();
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
    int slash = name.indexOf('/');
    String identifier = slash < 0 ? name : name.substring(slash + 1);
    if (slash >= 0) {
      String domain = name.substring(0, slash);
      if (domain.length() > 63 || !isDnsSubdomain(domain)) {
        throw new IllegalArgumentException(
            "attribute name \"" + name + "\": domain \"" + domain + "\" is not a DNS subdomain of at most 63 characters");
      }
    }
    if (identifier.length() > MAX_IDENTIFIER_LENGTH || !C_IDENTIFIER.matcher(identifier).matches()) {
      throw new IllegalArgumentException(
          "attribute name \"" + name + "\": \"" + identifier
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
