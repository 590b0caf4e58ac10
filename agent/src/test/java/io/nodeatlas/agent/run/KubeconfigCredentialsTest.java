package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.ClaimLookupException;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.TestPki;
import io.nodeatlas.agent.testing.TestPki.KeyKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 items 2 and 3: the agent's API client built from kubeconfigs as kubeadm, kubectl and
 * operators write them, against an HTTPS API server of the test's own that asks for a client
 * certificate signed by its CA (made with openssl). Each layout must authenticate both the agent's
 * fabric8 calls (a Node GET) and its claim GETs; a bad one must say which member and why; a
 * {@code tokenFile} and a certificate rotated on disk must be read again.
 */
class KubeconfigCredentialsTest {

  private static final ClaimRef TRAIN = new ClaimRef("default", "train", "uid-train");

  @TempDir static Path pkiDir;
  private static TestPki pki;

  @TempDir Path dir;

  @BeforeAll
  static void authority() throws Exception {
    pki = new TestPki(pkiDir);
  }

  private String kubeconfig(ClaimApiServer api, String user) throws Exception {
    Files.writeString(dir.resolve("ca.crt"), pki.caPem());
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: "%s"
            certificate-authority: ca.crt
        users:
        - name: node
          user:
        %s
        contexts:
        - name: test
          context: {cluster: test, user: node}
        current-context: test
        """.formatted(api.url(), user.indent(4).stripTrailing());
  }

  private Path write(String yaml) throws Exception {
    return Files.writeString(dir.resolve("kubeconfig"), yaml);
  }

  /** The layouts kubeadm, kubectl and operators write, each read and used for both kinds of call. */
  @Test
  void everyLayoutOfClientCertificateAndKeyAuthenticatesBothKindsOfCall() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext(), true)) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0"), 0));
      api.acceptOnlyClient("CN=system:node:node-a");

      TestPki.Client rsa1 = pki.client("rsa1", KeyKind.RSA_PKCS1, "system:node:node-a");
      Files.copy(rsa1.cert(), dir.resolve("rsa1.crt"));
      Files.copy(rsa1.key(), dir.resolve("rsa1.key"));
      // Relative paths are relative to the kubeconfig's directory.
      expectServed(api, "client-certificate: rsa1.crt\nclient-key: rsa1.key");

      // kubeadm's kubelet.conf: certificate and key in one file, named by both members.
      TestPki.Client ec = pki.client("ec", KeyKind.EC_SEC1, "system:node:node-a");
      Path combined = dir.resolve("kubelet-client-current.pem");
      Files.writeString(combined, Files.readString(ec.cert()) + Files.readString(ec.key()));
      expectServed(api, "client-certificate: " + combined + "\nclient-key: " + combined);

      // The key first, with the EC PARAMETERS block openssl ecparam writes before it.
      TestPki.Client ecp = pki.client("ecp", KeyKind.EC_SEC1_WITH_PARAMETERS, "system:node:node-a");
      Path keyFirst = dir.resolve("key-first.pem");
      Files.writeString(keyFirst, Files.readString(ecp.key()) + Files.readString(ecp.cert()));
      assertThat(Files.readString(keyFirst)).contains("BEGIN EC PARAMETERS", "BEGIN EC PRIVATE KEY");
      expectServed(api, "client-certificate: " + keyFirst + "\nclient-key: " + keyFirst);

      // Inline data, PKCS#8 RSA.
      TestPki.Client rsa8 = pki.client("rsa8", KeyKind.RSA_PKCS8, "system:node:node-a");
      expectServed(api, "client-certificate-data: " + base64(rsa8.cert()) + "\nclient-key-data: " + base64(rsa8.key()));

      // PKCS#8 EC in two files.
      TestPki.Client ec8 = pki.client("ec8", KeyKind.EC_PKCS8, "system:node:node-a");
      expectServed(api, "client-certificate: " + ec8.cert() + "\nclient-key: " + ec8.key());
    }
  }

  @Test
  void aBadLayoutSaysWhichMemberAndWhy() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext(), true)) {
      TestPki.Client a = pki.client("bad-a", KeyKind.EC_SEC1, "system:node:node-a");
      TestPki.Client b = pki.client("bad-b", KeyKind.RSA_PKCS1, "system:node:node-a");
      expectRefused(api, "client-certificate: " + a.cert() + "\nclient-key: " + b.key(),
          "client-key " + b.key(), "does not belong to the certificate");
      expectRefused(api, "client-certificate: " + a.cert() + "\nclient-key: " + pki.encrypted(a),
          "client-key ", "encrypted");
      expectRefused(api, "client-certificate: " + a.cert() + "\nclient-key: " + dir.resolve("missing.key"),
          "client-key " + dir.resolve("missing.key"), "NoSuchFile");
      expectRefused(api, "client-certificate: " + a.key() + "\nclient-key: " + a.key(),
          "client-certificate " + a.key(), "no CERTIFICATE block");
      expectRefused(api, "client-certificate: " + a.cert(), "a client certificate but no client-key");
      expectRefused(api, "client-certificate-data: " + base64(a.cert()) + "\nclient-key-data: '%%%'", "client-key-data",
          "not base64");
    }
  }

  /** Issue 35 item 3: tokenFile is the bearer token, read again when it changes; a 401 names server and source. */
  @Test
  void aTokenFileIsUsedAndReadAgainWhenItChanges() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext(), false)) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0"), 0));
      Path token = Files.writeString(dir.resolve("token"), "first-token\n");
      api.acceptOnlyToken("first-token");
      try (KubernetesClient client = AgentLauncher.kubernetesClient(write(kubeconfig(api, "tokenFile: token")))) {
        ApiClaimLookup lookup = new ApiClaimLookup(client);
        assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::device).containsExactly("gpu-0");
        assertThat(api.claimAuthorization()).isEqualTo("Bearer first-token");
        assertThat(client.nodes().withName("node-a").get().getMetadata().getUid()).isEqualTo("uid-node-a");

        // Rotated as a projected token is: a new file renamed over the old.
        Path next = Files.writeString(dir.resolve(".token.new"), "second-token");
        Files.move(next, token, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        api.acceptOnlyToken("second-token");
        assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::device).containsExactly("gpu-0");
        assertThat(api.claimAuthorization()).isEqualTo("Bearer second-token");
        assertThat(client.nodes().withName("node-a").get().getMetadata().getUid()).isEqualTo("uid-node-a");

        // A token the server does not take: the claim's error names the server and where the token came from.
        api.acceptOnlyToken("third-token");
        assertThatThrownBy(() -> lookup.allocation(TRAIN)).isInstanceOf(ClaimLookupException.class)
            .hasMessageContaining("HTTP 401").hasMessageContaining(api.url())
            .hasMessageContaining("tokenFile " + token);
      }
    }
  }

  /**
   * Issue 35 item 3: the kubelet renews its client certificate in place (a new file behind
   * {@code kubelet-client-current.pem}); the API server then takes only the new one.
   */
  @Test
  void aClientCertificateRotatedOnDiskIsReadAgain() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext(), true)) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0"), 0));
      TestPki.Client first = pki.client("rot-1", KeyKind.EC_SEC1, "system:node:node-a-1");
      TestPki.Client second = pki.client("rot-2", KeyKind.EC_SEC1, "system:node:node-a-2");
      Path dated1 = Files.writeString(dir.resolve("kubelet-client-2026-01.pem"),
          Files.readString(first.cert()) + Files.readString(first.key()));
      Path dated2 = Files.writeString(dir.resolve("kubelet-client-2026-02.pem"),
          Files.readString(second.cert()) + Files.readString(second.key()));
      Path current = dir.resolve("kubelet-client-current.pem");
      Files.createSymbolicLink(current, dated1.getFileName());
      api.acceptOnlyClient("CN=system:node:node-a-1");
      try (KubernetesClient client = AgentLauncher.kubernetesClient(write(kubeconfig(api,
          "client-certificate: " + current + "\nclient-key: " + current)))) {
        ApiClaimLookup lookup = new ApiClaimLookup(client);
        assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::device).containsExactly("gpu-0");
        // fabric8's own calls keep their connection alive between calls, with the certificate it was opened with.
        assertThat(client.nodes().withName("node-a").get().getMetadata().getUid()).isEqualTo("uid-node-a");

        // As the kubelet rotates: the link is swapped for one to the new dated file.
        Path link = dir.resolve(".current.new");
        Files.createSymbolicLink(link, dated2.getFileName());
        Files.move(link, current, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        api.acceptOnlyClient("CN=system:node:node-a-2");
        int refused = api.refusedClients();
        assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::device).containsExactly("gpu-0");
        assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::device).containsExactly("gpu-0");
        assertThat(api.refusedClients()).as("no claim GET went with the old certificate").isEqualTo(refused);
        // And fabric8's calls (slices, node, status) present the new one too.
        assertThat(client.nodes().withName("node-a").get().getMetadata().getUid()).isEqualTo("uid-node-a");
        assertThat(api.refusedClients()).as("no call went with the old certificate").isEqualTo(refused);

        // The certificate expires without a new one: the error names server and certificate file.
        api.acceptOnlyClient("CN=system:node:node-a-3");
        assertThatThrownBy(() -> lookup.allocation(TRAIN)).isInstanceOf(ClaimLookupException.class)
            .hasMessageContaining("HTTP 401").hasMessageContaining(api.url())
            .hasMessageContaining("client-certificate " + current);
      }
    }
  }

  private void expectServed(ClaimApiServer api, String user) throws Exception {
    try (KubernetesClient client = AgentLauncher.kubernetesClient(write(kubeconfig(api, user)))) {
      assertThat(client.nodes().withName("node-a").get().getMetadata().getUid()).as(user).isEqualTo("uid-node-a");
      assertThat(new ApiClaimLookup(client).allocation(TRAIN)).as(user).extracting(AllocatedDevice::device)
          .containsExactly("gpu-0");
    }
  }

  private void expectRefused(ClaimApiServer api, String user, String... says) throws Exception {
    Path file = write(kubeconfig(api, user));
    assertThatThrownBy(() -> AgentLauncher.kubernetesClient(file).close()).as(user)
        .isInstanceOf(AgentLauncher.SettingException.class)
        .hasMessageContaining("kubeconfig " + file)
        .satisfies(e -> {
          for (String s : says) {
            assertThat(e.getMessage()).contains(s);
          }
        });
  }

  private static String base64(Path pem) throws Exception {
    return Base64.getEncoder().encodeToString(Files.readString(pem).getBytes(StandardCharsets.US_ASCII));
  }
}
