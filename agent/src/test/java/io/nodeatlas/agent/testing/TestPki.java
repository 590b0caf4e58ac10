package io.nodeatlas.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority of the test's own, made with the openssl command as an operator or kubeadm
 * makes one: a server certificate for 127.0.0.1 and client certificates with their keys in the PEM
 * layouts Kubernetes clients read (PKCS#1 RSA, SEC 1 EC, PKCS#8).
 */
public final class TestPki {

  private final Path dir;
  private int serial = 1;

  public TestPki(Path dir) throws Exception {
    this.dir = Files.createDirectories(dir);
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=test-ca",
        "-days", "2");
    Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1\n");
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server.key");
    openssl("req", "-new", "-key", "server.key", "-subj", "/CN=127.0.0.1", "-out", "server.csr");
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial", "1000", "-days", "2",
        "-extfile", "server.ext", "-out", "server.crt");
    openssl("pkcs12", "-export", "-in", "server.crt", "-inkey", "server.key", "-out", "server.p12", "-passout", "pass:changeit");
  }

  /** The CA certificate, PEM. */
  public String caPem() throws IOException {
    return Files.readString(dir.resolve("ca.crt"));
  }

  /** Key kinds, as openssl writes them. */
  public enum KeyKind { RSA_PKCS1, RSA_PKCS8, EC_SEC1, EC_SEC1_WITH_PARAMETERS, EC_PKCS8 }

  /** A client key and certificate: {@code <name>.key} and {@code <name>.crt} in PEM. */
  public record Client(Path key, Path cert) {}

  /** A new client key of {@code kind} and a certificate for {@code cn} signed by the CA. */
  public Client client(String name, KeyKind kind, String cn) throws Exception {
    String key = name + ".key";
    switch (kind) {
      case RSA_PKCS1 -> openssl("genrsa", "-traditional", "-out", key, "2048");
      case RSA_PKCS8 -> openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key);
      case EC_SEC1 -> openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key);
      case EC_SEC1_WITH_PARAMETERS -> openssl("ecparam", "-name", "secp384r1", "-genkey", "-out", key);
      case EC_PKCS8 -> openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
    }
    openssl("req", "-new", "-key", key, "-subj", "/O=system:nodes/CN=" + cn, "-out", name + ".csr");
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial",
        Integer.toString(serial++), "-days", "2", "-out", name + ".crt");
    return new Client(dir.resolve(key), dir.resolve(name + ".crt"));
  }

  /** The key encrypted with a passphrase, as {@code openssl pkcs8 -topk8} writes it. */
  public Path encrypted(Client c) throws Exception {
    Path out = dir.resolve(c.key().getFileName() + ".enc");
    openssl("pkcs8", "-topk8", "-in", c.key().toString(), "-out", out.toString(), "-passout", "pass:secret");
    return out;
  }

  /**
   * The server side: presents the server certificate, and with {@code needClientAuth} asks every client
   * for a certificate signed by the CA.
   */
  public SSLContext serverContext() throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(dir.resolve("ca.crt"))) {
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ctx;
  }

  private void openssl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
    }
  }
}
