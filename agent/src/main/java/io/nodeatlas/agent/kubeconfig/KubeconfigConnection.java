package io.nodeatlas.agent.kubeconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.agent.api.ApiConnection;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.TrustManager;

/**
 * The agent's own {@link ApiConnection} from a kubeconfig, read as client-go's clientcmd reads one
 * (current context, its cluster's {@code server} and {@code certificate-authority(-data)}, its user's
 * {@code token}, {@code tokenFile} and {@code client-certificate(-data)}/{@code client-key(-data)}, paths
 * relative to the file), or from the in-cluster service account (rest.InClusterConfig). A kubeconfig
 * that needs what only fabric8 does (an exec plugin or auth provider, basic auth, impersonation, a
 * proxy, TLS without checks or with another server name) gives none: the caller keeps fabric8's client.
 */
public final class KubeconfigConnection {

  /** A kubeconfig is a few KiB; larger ones are refused before YAML reads them. */
  static final int MAX_BYTES = 1 << 20;
  /** Members of a user, cluster or context that only fabric8's client serves. */
  private static final List<String> FABRIC8_ONLY = List.of("exec", "auth-provider", "username", "password", "as",
      "as-uid", "as-groups", "as-user-extra", "proxy-url", "insecure-skip-tls-verify", "tls-server-name",
      "disable-compression");
  private static final List<String> PROXY_VARIABLES = List.of("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
      "ALL_PROXY", "all_proxy");

  /** The connection and the credentials' description for messages ({@code kubeconfig F user U: token}). */
  public record Read(ApiConnection connection, String credentials) {}

  private KubeconfigConnection() {}

  /**
   * The connection {@code kubeconfig} describes, or empty when it needs fabric8's client (see the class
   * comment) or a proxy variable is set in {@code env}.
   */
  public static Optional<Read> read(Path kubeconfig, Map<String, String> env, ApiConnection.Limits limits)
      throws KubeconfigAuth.BadCredentialsException, IOException {
    if (PROXY_VARIABLES.stream().anyMatch(v -> env.get(v) != null && !env.get(v).isEmpty())) {
      return Optional.empty();
    }
    JsonNode file = parse(kubeconfig);
    String contextName = text(file, "current-context");
    JsonNode context = named(file, "contexts", contextName, "context");
    String who = "kubeconfig " + kubeconfig;
    if (context == null) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": no context " + (contextName == null ? "is current" : contextName), null);
    }
    String userName = text(context, "user");
    JsonNode cluster = named(file, "clusters", text(context, "cluster"), "cluster");
    JsonNode user = named(file, "users", userName, "user");
    if (cluster == null || text(cluster, "server") == null) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": the context's cluster names no server", null);
    }
    if (fabric8Only(cluster) || user != null && fabric8Only(user) || fabric8Only(context)) {
      return Optional.empty();
    }
    who += userName == null ? "" : " user " + userName;
    Path dir = kubeconfig.toAbsolutePath().getParent();
    URI server;
    try {
      server = URI.create(text(cluster, "server"));
    } catch (IllegalArgumentException e) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": server is not a URL: " + e.getMessage(), e);
    }
    TrustManager[] trust = trust(cluster, dir, who);
    Supplier<String> token = null;
    String credentials = who;
    ClientCertificate cert = null;
    if (user != null) {
      String inline = text(user, "token");
      if (inline != null) {
        token = () -> inline;
        credentials = who + ": token";
      }
      String tokenFile = text(user, "tokenFile");
      if (tokenFile != null) {
        Path f = dir.resolve(tokenFile);
        try {
          token = TokenFile.open(f, inline)::getToken;
        } catch (IOException e) {
          throw new KubeconfigAuth.BadCredentialsException(who + ": " + e.getMessage(), e);
        }
        credentials = who + ": tokenFile " + f;
      }
      if (text(user, "client-certificate-data") != null || text(user, "client-certificate") != null
          || text(user, "client-key-data") != null || text(user, "client-key") != null) {
        try {
          cert = ClientCertificate.load(source(user, "client-certificate", dir, who), source(user, "client-key", dir, who));
        } catch (IOException | PemKeyPair.BadPemException e) {
          throw new KubeconfigAuth.BadCredentialsException(who + ": " + e.getMessage(), e);
        }
        credentials = who + ": " + cert.describe();
      }
    }
    try {
      return Optional.of(new Read(new ApiConnection(server, trust, cert, token, limits), credentials));
    } catch (IllegalArgumentException e) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": " + e.getMessage(), e);
    }
  }

  /** The kubeconfig's YAML as a tree, at most {@code MAX_BYTES} of it. */
  private static JsonNode parse(Path kubeconfig) throws KubeconfigAuth.BadCredentialsException, IOException {
    byte[] bytes;
    try (var in = Files.newInputStream(kubeconfig)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    }
    if (bytes.length > MAX_BYTES) {
      throw new KubeconfigAuth.BadCredentialsException("kubeconfig " + kubeconfig + " is larger than " + MAX_BYTES + " bytes", null);
    }
    try {
      return new YAMLMapper().readTree(bytes);
    } catch (IOException e) {
      throw new KubeconfigAuth.BadCredentialsException("cannot read " + kubeconfig + ": " + e.getMessage(), e);
    }
  }

  /**
   * The in-cluster connection (client-go's rest.InClusterConfig): {@code https://$KUBERNETES_SERVICE_HOST:
   * $KUBERNETES_SERVICE_PORT}, the service account's {@code ca.crt} and its {@code token} read again when it changes.
   */
  public static Read inCluster(Map<String, String> env, Path serviceAccount, ApiConnection.Limits limits)
      throws KubeconfigAuth.BadCredentialsException {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "443");
    String who = "in-cluster service account token " + serviceAccount.resolve("token");
    try {
      URI server = URI.create("https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port);
      TrustManager[] trust = ApiConnection.trusting(read(serviceAccount.resolve("ca.crt")));
      TokenFile token = TokenFile.open(serviceAccount.resolve("token"), null);
      return new Read(new ApiConnection(server, trust, null, token::getToken, limits), who);
    } catch (IOException | java.security.GeneralSecurityException | IllegalArgumentException e) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": " + e.getMessage(), e);
    }
  }

  private static boolean fabric8Only(JsonNode n) {
    return FABRIC8_ONLY.stream().anyMatch(m -> n.has(m) && !n.get(m).isNull() && !(n.get(m).isBoolean() && !n.get(m).asBoolean())
        && !(n.get(m).isTextual() && n.get(m).asText().isEmpty()));
  }

  private static TrustManager[] trust(JsonNode cluster, Path dir, String who) throws KubeconfigAuth.BadCredentialsException {
    String data = text(cluster, "certificate-authority-data");
    String file = text(cluster, "certificate-authority");
    if (data == null && file == null) {
      return null; // the JDK's trust store, as client-go uses the system roots
    }
    try {
      byte[] pem = data != null ? Base64.getDecoder().decode(data.replaceAll("\\s", "")) : read(dir.resolve(file));
      return ApiConnection.trusting(pem);
    } catch (IOException | java.security.GeneralSecurityException | IllegalArgumentException e) {
      throw new KubeconfigAuth.BadCredentialsException(who + ": the cluster's certificate-authority"
          + (data != null ? "-data" : " " + dir.resolve(file)) + ": " + e.getMessage(), e);
    }
  }

  private static byte[] read(Path f) throws IOException {
    try (var in = Files.newInputStream(f)) {
      byte[] b = in.readNBytes(MAX_BYTES + 1);
      if (b.length > MAX_BYTES) {
        throw new IOException(f + " is larger than " + MAX_BYTES + " bytes");
      }
      return b;
    }
  }

  /** Inline data wins over a file, as in client-go ({@code CertData takes precedence over CertFile}). */
  private static ClientCertificate.Source source(JsonNode user, String member, Path dir, String who)
      throws KubeconfigAuth.BadCredentialsException {
    String data = text(user, member + "-data");
    if (data != null) {
      try {
        return ClientCertificate.Source.data(member + "-data", Base64.getDecoder().decode(data.replaceAll("\\s", "")));
      } catch (IllegalArgumentException e) {
        throw new KubeconfigAuth.BadCredentialsException(who + ": " + member + "-data is not base64: " + e.getMessage(), e);
      }
    }
    String file = text(user, member);
    if (file != null) {
      return ClientCertificate.Source.file(member, dir.resolve(file));
    }
    throw new KubeconfigAuth.BadCredentialsException(who + ": has " + (member.equals("client-key")
        ? "a client certificate but no client-key" : "a client-key but no client-certificate") + " (or -data)", null);
  }

  /** The {@code field} of the entry of list {@code list} whose {@code name} is {@code name}. */
  private static JsonNode named(JsonNode file, String list, String name, String field) {
    JsonNode entries = file == null ? null : file.get(list);
    if (name == null || entries == null || !entries.isArray()) {
      return null;
    }
    for (JsonNode e : entries) {
      if (name.equals(text(e, "name"))) {
        JsonNode f = e.get(field);
        return f != null && f.isObject() ? f : null;
      }
    }
    return null;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n == null ? null : n.get(field);
    return v != null && v.isValueNode() && !v.isNull() && !v.asText().isEmpty() ? v.asText() : null;
  }
}
