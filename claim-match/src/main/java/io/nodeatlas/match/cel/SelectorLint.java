package io.nodeatlas.match.cel;

import io.nodeatlas.discovery.model.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises selector mistakes that compile (or fail to compile) without saying why. The main one is
 * writing the qualified name as one map key, {@code device.attributes["nodeatlas.io/type"]}: the API keys
 * {@code device.attributes} by domain only, so the lookup yields an empty map ({@code resource.k8s.io/v1}
 * {@code CELDeviceSelector.expression} documentation).
 */
public final class SelectorLint {

  private static final Pattern DOMAIN_SLASH_ID = Pattern.compile(
      "device\\.(attributes|capacity)\\[\\s*([\"'])([^\"'/\\s]+)/([A-Za-z_][A-Za-z0-9_]*)\\2\\s*\\]");
  private static final Pattern DOMAIN_KEY = Pattern.compile(
      "device\\.(attributes|capacity)\\[\\s*([\"'])([^\"']*)\\2\\s*\\]");

  private SelectorLint() {}

  /** The expression with every {@code device.attributes["domain/name"]} rewritten to {@code device.attributes["domain"].name}. */
  public static Optional<String> correctedDomainSplit(String expression) {
    Matcher m = DOMAIN_SLASH_ID.matcher(expression);
    if (!m.find()) {
      return Optional.empty();
    }
    return Optional.of(m.replaceAll(r -> Matcher.quoteReplacement(
        "device." + r.group(1) + "[" + r.group(2) + r.group(3) + r.group(2) + "]." + r.group(4))));
  }

  /** Human-readable warnings about map keys that cannot be a domain. */
  public static List<String> warnings(String expression) {
    List<String> out = new ArrayList<>();
    correctedDomainSplit(expression).ifPresent(fixed -> out.add(
        "device.attributes and device.capacity are keyed by domain, not by qualified name; corrected expression: "
            + fixed));
    Matcher m = DOMAIN_KEY.matcher(expression);
    while (m.find()) {
      String key = m.group(3);
      if (key.contains("/")) {
        continue;
      }
      // Driver domains are dotted DNS subdomains; a bare word is almost always an attribute name.
      if (key.length() > 63 || !key.contains(".") || !Names.isDnsSubdomain(key)) {
        out.add("\"" + key + "\" in device." + m.group(1) + "[...] is not a domain (a DNS subdomain such as "
            + Names.DOMAIN + " or " + Names.STANDARD_DOMAIN + "); unqualified attribute names are written after the domain: "
            + "device." + m.group(1) + "[\"<domain>\"]." + key);
      }
    }
    return out;
  }
}
