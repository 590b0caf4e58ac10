package io.nodeatlas.agent.kubeconfig;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;

/**
 * The credentials of a kubeconfig's current user, read as client-go reads them (clientcmd's
 * {@code getUserIdentificationPartialConfig} and the transport's file reloading) where fabric8 does
 * not: {@code tokenFile} (ignored by fabric8), and the client certificate in every layout (fabric8
 * fails on a certificate and key in one file, kubeadm's layout for the kubelet) and re-read when
 * rotated on disk. {@link #apply} takes these members out of fabric8's {@link Config} and hands back
 * what the agent's HTTP clients use instead; the rest (server, CA, exec plugins, impersonation) stays
 * fabric8's.
 */
public final class KubeconfigAuth {

  /** {@link Config#getAdditionalProperties()} key of the {@link ClientCertificate} in use, for the claim GETs. */
  public static final String CLIENT_CERTIFICATE = "nodeatlas.io/client-certificate";
  /** {@link Config#getAdditionalProperties()} key of the credentials' description (a String), for messages. */
  public static final String CREDENTIALS = "nodeatlas.io/credentials";

  /** A kubeconfig whose credentials cannot be used; the message names the member, the file and the cause. */
  public static final class BadCredentialsException extends Exception {
    private static final long serialVersionUID = 1L;

    BadCredentialsException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private KubeconfigAuth() {}

  /**
   * Reads the current user's credentials of {@code kubeconfig} (whose text is {@code yaml}) into
   * {@code config}; returns the client certificate the HTTP clients must present, when there is one.
   */
  public static Optional<ClientCertificate> apply(Config config, Path kubeconfig, String yaml) throws BadCredentialsException {
    io.fabric8.kubernetes.api.model.Config file;
    try {
      file = KubeConfigUtils.parseConfigFromString(yaml);
    } catch (RuntimeException e) {
      throw new BadCredentialsException("cannot read " + kubeconfig + ": " + e.getMessage(), e);
    }
    AuthInfo user = currentUser(file);
    Path dir = kubeconfig.toAbsolutePath().getParent();
    String userName = config.getCurrentContext() != null && config.getCurrentContext().getContext() != null
        ? config.getCurrentContext().getContext().getUser() : null;
    String who = "kubeconfig " + kubeconfig + (userName == null ? "" : " user " + userName);
    String credentials = who + (config.getOauthToken() != null && !config.getOauthToken().isEmpty() ? ": token" : "");
    if (user != null && user.getTokenFile() != null && !user.getTokenFile().isEmpty()) {
      Path tokenFile = dir.resolve(user.getTokenFile());
      try {
        config.setOauthTokenProvider(TokenFile.open(tokenFile, user.getToken()));
      } catch (IOException e) {
        throw new BadCredentialsException(who + ": " + e.getMessage(), e);
      }
      credentials = who + ": tokenFile " + tokenFile;
    }
    Optional<ClientCertificate> cert = Optional.empty();
    if (user != null && (present(user.getClientCertificateData()) || present(user.getClientCertificate())
        || present(user.getClientKeyData()) || present(user.getClientKey()))) {
      ClientCertificate.Source certSource = source(user.getClientCertificateData(), user.getClientCertificate(),
          "client-certificate", dir, who);
      ClientCertificate.Source keySource = source(user.getClientKeyData(), user.getClientKey(), "client-key", dir, who);
      try {
        cert = Optional.of(ClientCertificate.load(certSource, keySource));
      } catch (IOException | PemKeyPair.BadPemException e) {
        throw new BadCredentialsException(who + ": " + e.getMessage(), e);
      }
      credentials = who + ": " + cert.get().describe();
      // fabric8 must not read them itself: it cannot read every layout, and never reads them again.
      config.setClientCertData(null);
      config.setClientCertFile(null);
      config.setClientKeyData(null);
      config.setClientKeyFile(null);
      config.setAdditionalProperty(CLIENT_CERTIFICATE, cert.get());
    }
    config.setAdditionalProperty(CREDENTIALS, credentials);
    return cert;
  }

  private static boolean present(String s) {
    return s != null && !s.isEmpty();
  }

  /** Inline data wins over a file, as in client-go ({@code CertData takes precedence over CertFile}). */
  private static ClientCertificate.Source source(String data, String file, String member, Path dir, String who)
      throws BadCredentialsException {
    if (present(data)) {
      try {
        return ClientCertificate.Source.data(member + "-data", Base64.getDecoder().decode(data.replaceAll("\\s", "")));
      } catch (IllegalArgumentException e) {
        throw new BadCredentialsException(who + ": " + member + "-data is not base64: " + e.getMessage(), e);
      }
    }
    if (present(file)) {
      return ClientCertificate.Source.file(member, dir.resolve(file));
    }
    throw new BadCredentialsException(who + ": has " + (member.equals("client-key") ? "a client certificate but no client-key"
        : "a client-key but no client-certificate") + " (or -data)", null);
  }

  private static AuthInfo currentUser(io.fabric8.kubernetes.api.model.Config file) {
    if (file == null || file.getContexts() == null || file.getUsers() == null) {
      return null;
    }
    String user = null;
    for (NamedContext c : file.getContexts()) {
      if (c.getName() != null && c.getName().equals(file.getCurrentContext()) && c.getContext() != null) {
        user = c.getContext().getUser();
      }
    }
    for (NamedAuthInfo u : file.getUsers()) {
      if (u.getName() != null && u.getName().equals(user)) {
        return u.getUser();
      }
    }
    return null;
  }
}
