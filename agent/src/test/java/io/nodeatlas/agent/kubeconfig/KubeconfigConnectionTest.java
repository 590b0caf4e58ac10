package io.nodeatlas.agent.kubeconfig;

import static io.nodeatlas.agent.api.ApiConnectionTest.send;
import static io.nodeatlas.agent.api.ApiConnectionTest.server;
import static io.nodeatlas.agent.api.ApiConnectionTest.url;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsExchange;
import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.testing.TestPki;
import io.nodeatlas.agent.testing.TestPki.KeyKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's own connection from kubeconfigs as kubeadm, kubectl and operators write them, against an
 * HTTPS server of the test's own that takes client certificates signed by its CA; what only fabric8
 * serves gives no connection.
 */
class KubeconfigConnectionTest {

  @TempDir static Path pkiDir;
  private static TestPki pki;

  @TempDir Path dir;
  private HttpServer api;

  @BeforeAll
  static void authority() throws Exception {
    pki = new TestPki(pkiDir);
  }

  @BeforeEach
  void start() throws Exception {
    // Answers who the client is: its certificate's subject and its bearer token.
    api = server(pki.serverContext(), false, ex -> {
      String subject;
      try {
        subject = ((HttpsExchange) ex).getSSLSession().getPeerPrincipal().getName();
      } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
        subject = "none";
      }
      send(ex, 200, "{\"subject\":\"" + subject + "\",\"authorization\":\"" + ex.getRequestHeaders().getFirst("Authorization") + "\"}");
    });
    Files.writeString(dir.resolve("ca.crt"), pki.caPem());
  }

  @AfterEach
  void stop() {
    api.stop(0);
  }

  private Path kubeconfig(String cluster, String user) throws Exception {
    return Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: "%s"
        %s
        users:
        - name: node
          user:
        %s
        contexts:
        - name: test
          context: {cluster: test, user: node}
        current-context: test
        """.formatted(url(api), cluster.indent(4).stripTrailing(), user.indent(4).stripTrailing()));
  }

  private static Optional<KubeconfigConnection.Read> read(Path file, Map<String, String> env) throws Exception {
    return KubeconfigConnection.read(file, env, ApiConnection.Limits.DEFAULT);
  }

  private static String whoAmI(KubeconfigConnection.Read r) throws Exception {
    return new String(r.connection().call("GET", "/api/v1/nodes/node-a", null), StandardCharsets.UTF_8);
  }

  @Test
  void aClientCertificateAndKeyInFilesBesideTheKubeconfig() throws Exception {
    TestPki.Client c = pki.client("node-a", KeyKind.RSA_PKCS1, "system:node:node-a");
    Files.copy(c.cert(), dir.resolve("node.crt"));
    Files.copy(c.key(), dir.resolve("node.key"));
    Path file = kubeconfig("certificate-authority: ca.crt", "client-certificate: node.crt\nclient-key: node.key");
    KubeconfigConnection.Read r = read(file, Map.of()).orElseThrow();
    assertThat(whoAmI(r)).contains("CN=system:node:node-a").contains("\"authorization\":\"null\"");
    assertThat(r.credentials()).startsWith("kubeconfig " + file + " user node: ");
  }

  @Test
  void kubeadmsLayoutCertificateAndKeyInOneFileRotatedBehindALink() throws Exception {
    TestPki.Client first = pki.client("rot-1", KeyKind.EC_SEC1, "system:node:node-a-1");
    TestPki.Client second = pki.client("rot-2", KeyKind.EC_PKCS8, "system:node:node-a-2");
    Path dated1 = Files.writeString(dir.resolve("kubelet-client-2026-01.pem"),
        Files.readString(first.cert()) + Files.readString(first.key()));
    Path dated2 = Files.writeString(dir.resolve("kubelet-client-2026-02.pem"),
        Files.readString(second.cert()) + Files.readString(second.key()));
    Path current = dir.resolve("kubelet-client-current.pem");
    Files.createSymbolicLink(current, dated1.getFileName());
    String ca = java.util.Base64.getEncoder().encodeToString(pki.caPem().getBytes(StandardCharsets.US_ASCII));
    KubeconfigConnection.Read r = read(kubeconfig("certificate-authority-data: " + ca,
        "client-certificate: " + current + "\nclient-key: " + current), Map.of()).orElseThrow();
    assertThat(whoAmI(r)).contains("CN=system:node:node-a-1");
    Path link = dir.resolve(".current.new");
    Files.createSymbolicLink(link, dated2.getFileName());
    Files.move(link, current, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    assertThat(whoAmI(r)).contains("CN=system:node:node-a-2");
  }

  @Test
  void aTokenFileIsReadAgainWhenReplacedAndWinsOverTheInlineToken() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "first\n");
    Path file = kubeconfig("certificate-authority: ca.crt", "token: inline\ntokenFile: token");
    KubeconfigConnection.Read r = read(file, Map.of()).orElseThrow();
    assertThat(whoAmI(r)).contains("\"authorization\":\"Bearer first\"");
    assertThat(r.credentials()).isEqualTo("kubeconfig " + file + " user node: tokenFile " + token);
    Files.move(Files.writeString(dir.resolve("token.new"), "second\n"), token, StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    assertThat(whoAmI(r)).contains("\"authorization\":\"Bearer second\"");
  }

  @Test
  void theInClusterServiceAccount() throws Exception {
    Path sa = Files.createDirectories(dir.resolve("serviceaccount"));
    Files.writeString(sa.resolve("ca.crt"), pki.caPem());
    Files.writeString(sa.resolve("token"), "sa-token");
    KubeconfigConnection.Read r = KubeconfigConnection.inCluster(Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1",
        "KUBERNETES_SERVICE_PORT", Integer.toString(api.getAddress().getPort())), sa, ApiConnection.Limits.DEFAULT);
    assertThat(whoAmI(r)).contains("\"authorization\":\"Bearer sa-token\"");
  }

  @Test
  void whatOnlyFabric8ServesGivesNoConnection() throws Exception {
    assertThat(read(kubeconfig("certificate-authority: ca.crt",
        "exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: get-token"), Map.of())).isEmpty();
    assertThat(read(kubeconfig("insecure-skip-tls-verify: true", "token: t"), Map.of())).isEmpty();
    assertThat(read(kubeconfig("certificate-authority: ca.crt", "token: t"), Map.of("HTTPS_PROXY", "http://proxy:3128")))
        .isEmpty();
    assertThat(read(kubeconfig("insecure-skip-tls-verify: false\ncertificate-authority: ca.crt", "token: t"), Map.of()))
        .as("a member that asks for nothing").isPresent();
  }

  @Test
  void aBadKubeconfigSaysWhichMemberAndWhy() throws Exception {
    TestPki.Client c = pki.client("half", KeyKind.EC_SEC1, "system:node:node-a");
    Files.copy(c.cert(), dir.resolve("half.crt"));
    Path file = kubeconfig("certificate-authority: ca.crt", "client-certificate: half.crt");
    assertThatThrownBy(() -> read(file, Map.of())).isInstanceOf(KubeconfigAuth.BadCredentialsException.class)
        .hasMessage("kubeconfig " + file + " user node: has a client certificate but no client-key (or -data)");
    Path noCa = kubeconfig("certificate-authority: missing.crt", "token: t");
    assertThatThrownBy(() -> read(noCa, Map.of())).isInstanceOf(KubeconfigAuth.BadCredentialsException.class)
        .hasMessageStartingWith("kubeconfig " + noCa + " user node: the cluster's certificate-authority "
            + dir.resolve("missing.crt"));
  }
}
