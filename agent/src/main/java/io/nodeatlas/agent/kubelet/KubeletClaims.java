package io.nodeatlas.agent.kubelet;

import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.discovery.model.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Turns the proto claims of either API version into {@link ClaimRef}s, after checking each field
 * against the Kubernetes name rules: namespace and name go into API paths
 * ({@code /apis/resource.k8s.io/v1/namespaces/<ns>/resourceclaims/<name>}) and the UID into file
 * names, so nothing the kubelet sends reaches a URL or a path unchecked.
 */
final class KubeletClaims {

  /**
   * A UID as the API server makes them (RFC 4122 text, {@code metadata.uid}), loosened to letters,
   * digits and {@code -} of bounded length: nothing that could be a path or query ({@code /},
   * {@code ?}, {@code ..}).
   */
  private static final Pattern UID = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,126}[A-Za-z0-9])?");

  private KubeletClaims() {}

  /**
   * The claims whose namespace, name and UID are well formed; for each other one {@code invalid} gets
   * the key the kubelet will look for (the UID as sent) and an error naming the field, so one bad claim
   * costs only itself.
   */
  static <C> List<ClaimRef> valid(List<C> claims, Function<C, String> namespace, Function<C, String> name,
      Function<C, String> uid, BiConsumer<String, String> invalid) {
    List<ClaimRef> out = new ArrayList<>(claims.size());
    for (C c : claims) {
      String u = uid.apply(c);
      String ns = namespace.apply(c);
      String n = name.apply(c);
      String problem = problem(ns, n, u);
      if (problem != null) {
        invalid.accept(u, "claim " + quote(ns) + "/" + quote(n) + ": " + problem);
      } else {
        out.add(new ClaimRef(ns, n, u));
      }
    }
    return out;
  }

  /** Why a claim's fields cannot be used, or null when they can. */
  static String problem(String namespace, String name, String uid) {
    if (uid.isEmpty()) {
      return "has no UID";
    }
    if (!UID.matcher(uid).matches()) {
      return "uid " + quote(uid) + " is not a UID (letters, digits and '-', at most 128)";
    }
    // metadata.namespace: a DNS-1123 label (apimachinery ValidateNamespaceName).
    if (!Names.isDnsLabel(namespace)) {
      return "namespace " + quote(namespace) + " is not a DNS-1123 label";
    }
    // A ResourceClaim's metadata.name: a DNS-1123 subdomain (resource.k8s.io ValidateResourceClaim).
    if (!Names.isDnsSubdomain(name)) {
      return "name " + quote(name) + " is not a DNS-1123 subdomain";
    }
    return null;
  }

  /** The text in quotes, cut to 80 characters and with control characters shown as {@code ?}. */
  private static String quote(String s) {
    String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return "\"" + cut.replaceAll("\\p{Cntrl}", "?") + "\"";
  }
}
