package io.nodeatlas.agent.metadata;

import io.nodeatlas.discovery.model.Names;
import java.nio.file.Path;

/**
 * Where a request's metadata file is, in the container and on the host. In the container
 * (k8s.io/dynamic-resource-allocation {@code api/metadata/types.go} {@code ContainerDir},
 * {@code ResourceClaimsSubDir}, {@code ResourceClaimTemplatesSubDir}, {@code MetadataFileSuffix}; the
 * paths of {@code api/metadata/helpers.go}):
 * <pre>
 * /var/run/kubernetes.io/dra-device-attributes/resourceclaims/&lt;claim&gt;/&lt;request&gt;/&lt;driver&gt;-metadata.json
 * /var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/&lt;podClaimName&gt;/&lt;request&gt;/&lt;driver&gt;-metadata.json
 * </pre>
 * the second for a claim made from a template, named as the pod names it; {@code <request>} is the
 * base request name (a subrequest dropped). On the host the same relative path lies under
 * {@code <state-dir>/device-metadata/<claimUID>/}, so a claim's files are found, and removed, by its
 * UID alone, and the host tree says where each file goes in the container.
 *
 * <p>Every name is checked before it becomes a path segment: the claim's name is a DNS subdomain, the
 * pod's name for it and the request a DNS label, the UID letters, digits and {@code -}: none can be
 * {@code .}, {@code ..} or hold a {@code /}.
 */
public record MetadataLayout(Path root, String driver) {

  /** {@code api/metadata} {@code ContainerDir}. */
  public static final String CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes";
  /** {@code ResourceClaimsSubDir}: claims the pod names directly. */
  public static final String CLAIMS = "resourceclaims";
  /** {@code ResourceClaimTemplatesSubDir}: claims made from a ResourceClaimTemplate. */
  public static final String TEMPLATES = "resourceclaimtemplates";
  /** {@code MetadataFileSuffix}, after the driver name. */
  public static final String SUFFIX = "-metadata.json";
  /** The host directory under the state directory. */
  public static final String STATE_SUBDIR = "device-metadata";

  /** The layout under {@code <stateDir>/device-metadata} for {@code driver}'s files. */
  public static MetadataLayout under(Path stateDir, String driver) {
    return new MetadataLayout(stateDir.toAbsolutePath().resolve(STATE_SUBDIR), driver);
  }

  /** The file name in each request directory: {@code <driver>-metadata.json}. */
  public String fileName() {
    return driver + SUFFIX;
  }

  /** The host directory of one claim's files. */
  public Path claimDir(String uid) {
    if (!validUid(uid)) {
      throw new IllegalArgumentException("claim UID \"" + uid + "\" cannot name a directory");
    }
    return root.resolve(uid);
  }

  /** {@code resourceclaimtemplates/<podClaimName>} or {@code resourceclaims/<claim>}, the claim's part of the paths. */
  public static String claimPart(String claimName, String podClaimName) {
    return podClaimName.isEmpty() ? CLAIMS + "/" + claimName : TEMPLATES + "/" + podClaimName;
  }

  /** The file's path in the container. */
  public String containerPath(String claimPart, String request) {
    return CONTAINER_DIR + "/" + claimPart + "/" + request + "/" + fileName();
  }

  /** The file's path on the host. */
  public Path hostPath(String uid, String claimPart, String request) {
    return claimDir(uid).resolve(claimPart).resolve(request).resolve(fileName());
  }

  /** Why these names cannot make the paths, or null when they can. */
  public static String problem(String claimName, String podClaimName, String request) {
    if (!Names.isDnsSubdomain(claimName)) {
      return "claim name \"" + cut(claimName) + "\" is not a DNS subdomain";
    }
    if (!podClaimName.isEmpty() && !Names.isDnsLabel(podClaimName)) {
      return "the pod's claim name \"" + cut(podClaimName) + "\" is not a DNS label";
    }
    if (!Names.isDnsLabel(request)) {
      return "request name \"" + cut(request) + "\" is not a DNS label";
    }
    return null;
  }

  /** A Kubernetes UID as the kubelet layer accepts it: letters, digits and {@code -}, at most 128. */
  static boolean validUid(String uid) {
    if (uid == null || uid.isEmpty() || uid.length() > 128 || uid.startsWith("-") || uid.endsWith("-")) {
      return false;
    }
    for (int i = 0; i < uid.length(); i++) {
      char c = uid.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  private static String cut(String s) {
    String c = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return c.replaceAll("\\p{Cntrl}", "?");
  }
}
