package io.nodeatlas.agent.kubeconfig;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A client certificate chain and its private key from PEM text, in every layout the Kubernetes clients
 * read (client-go's {@code tls.X509KeyPair}): certificate and key in two files, in one file (kubeadm's
 * {@code kubelet-client-current.pem}) or inline; keys as PKCS#8 ({@code PRIVATE KEY}), PKCS#1
 * ({@code RSA PRIVATE KEY}) or SEC 1 ({@code EC PRIVATE KEY}, RFC 5915). As there, the certificate side
 * takes every {@code CERTIFICATE} block and the key side the first key block, each skipping the others;
 * the key must belong to the first certificate. Encrypted keys are refused, as kubectl refuses them.
 */
public record PemKeyPair(List<X509Certificate> chain, PrivateKey key) {

  /** PEM text larger than this is refused (a chain of a few certificates is a few KiB). */
  public static final int MAX_BYTES = 1 << 20;

  /** A PEM layout that cannot give a certificate or a key; the message says which and why. */
  public static final class BadPemException extends Exception {
    private static final long serialVersionUID = 1L;

    public BadPemException(String message) {
      super(message);
    }
  }

  private record Block(String type, boolean encrypted, byte[] der) {}

  /** Reads the pair; {@code certName} and {@code keyName} name the sources in messages. */
  public static PemKeyPair parse(byte[] certPem, String certName, byte[] keyPem, String keyName) throws BadPemException {
    List<X509Certificate> chain = new ArrayList<>();
    CertificateFactory x509;
    try {
      x509 = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException(e);
    }
    for (Block b : blocks(certPem, certName)) {
      if (b.type().equals("CERTIFICATE")) {
        try {
          chain.add((X509Certificate) x509.generateCertificate(new ByteArrayInputStream(b.der())));
        } catch (CertificateException | ClassCastException e) {
          throw new BadPemException(certName + ": a CERTIFICATE block is not an X.509 certificate: " + e.getMessage());
        }
      }
    }
    if (chain.isEmpty()) {
      throw new BadPemException(certName + ": no CERTIFICATE block");
    }
    Block keyBlock = null;
    for (Block b : blocks(keyPem, keyName)) {
      if (b.type().equals("PRIVATE KEY") || b.type().endsWith(" PRIVATE KEY")) {
        keyBlock = b;
        break;
      }
    }
    if (keyBlock == null) {
      throw new BadPemException(keyName + ": no private key (a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block)");
    }
    if (keyBlock.encrypted() || keyBlock.type().equals("ENCRYPTED PRIVATE KEY")) {
      throw new BadPemException(keyName + ": the private key is encrypted; Kubernetes clients read only unencrypted keys");
    }
    PrivateKey key = key(keyBlock, keyName);
    checkBelongs(key, chain.get(0), keyName, certName);
    return new PemKeyPair(List.copyOf(chain), key);
  }

  private static PrivateKey key(Block b, String keyName) throws BadPemException {
    byte[] pkcs8;
    List<String> algorithms;
    try {
      switch (b.type()) {
        case "PRIVATE KEY" -> {
          pkcs8 = b.der();
          algorithms = List.of("RSA", "EC", "Ed25519", "RSASSA-PSS");
        }
        case "RSA PRIVATE KEY" -> {
          // PKCS#1 RSAPrivateKey inside a PKCS#8 PrivateKeyInfo (RFC 5208) with rsaEncryption, NULL parameters.
          pkcs8 = privateKeyInfo(hex("300d06092a864886f70d0101010500"), b.der());
          algorithms = List.of("RSA");
        }
        case "EC PRIVATE KEY" -> {
          // SEC 1 ECPrivateKey (RFC 5915): its [0] parameters name the curve, which PKCS#8 wants beside id-ecPublicKey.
          byte[] curve = sec1Curve(b.der());
          if (curve == null) {
            throw new BadPemException(keyName + ": the EC PRIVATE KEY names no curve (no [0] parameters); write it with"
                + " openssl ec or as PKCS#8");
          }
          ByteArrayOutputStream alg = new ByteArrayOutputStream();
          alg.writeBytes(hex("06072a8648ce3d0201"));
          alg.writeBytes(curve);
          pkcs8 = privateKeyInfo(tlv(0x30, alg.toByteArray()), b.der());
          algorithms = List.of("EC");
        }
        default -> throw new BadPemException(keyName + ": a " + b.type() + " block is not a key type Kubernetes clients read");
      }
    } catch (IllegalArgumentException e) {
      throw new BadPemException(keyName + ": the " + b.type() + " block is not valid DER: " + e.getMessage());
    }
    for (String algorithm : algorithms) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      } catch (GeneralSecurityException e) {
        // Another algorithm, or not a key at all: try the next one.
      }
    }
    throw new BadPemException(keyName + ": the " + b.type() + " block is not an RSA, EC or Ed25519 private key");
  }

  /** The key must be the certificate's: a signature made with it verifies with the certificate's public key. */
  private static void checkBelongs(PrivateKey key, X509Certificate cert, String keyName, String certName) throws BadPemException {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null) {
      return;
    }
    byte[] probe = "nodeatlas key check".getBytes(StandardCharsets.US_ASCII);
    try {
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(algorithm);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      if (v.verify(sig)) {
        return;
      }
    } catch (GeneralSecurityException e) {
      // A key of another type than the certificate's: does not belong either.
    }
    throw new BadPemException(keyName + ": the private key does not belong to the certificate of " + certName + " ("
        + cert.getSubjectX500Principal().getName() + ")");
  }

  /** The PEM blocks of {@code text}, in order. */
  private static List<Block> blocks(byte[] pem, String name) throws BadPemException {
    if (pem.length > MAX_BYTES) {
      throw new BadPemException(name + ": more than " + MAX_BYTES + " bytes");
    }
    List<Block> out = new ArrayList<>();
    String[] lines = new String(pem, StandardCharsets.US_ASCII).split("\r?\n");
    String type = null;
    boolean encrypted = false;
    StringBuilder body = new StringBuilder();
    for (String raw : lines) {
      String line = raw.strip();
      if (type == null) {
        if (line.startsWith("-----BEGIN ") && line.endsWith("-----")) {
          type = line.substring(11, line.length() - 5);
          encrypted = false;
          body.setLength(0);
        }
      } else if (line.equals("-----END " + type + "-----")) {
        try {
          out.add(new Block(type, encrypted, Base64.getMimeDecoder().decode(body.toString())));
        } catch (IllegalArgumentException e) {
          throw new BadPemException(name + ": the " + type + " block is not base64: " + e.getMessage());
        }
        type = null;
      } else if (line.contains(":")) {
        // RFC 1421 headers (Proc-Type: 4,ENCRYPTED; DEK-Info: ...) of an OpenSSL-encrypted key.
        encrypted |= line.startsWith("Proc-Type:") && line.contains("ENCRYPTED");
      } else {
        body.append(line);
      }
    }
    if (type != null) {
      throw new BadPemException(name + ": the " + type + " block has no END line");
    }
    if (out.isEmpty()) {
      throw new BadPemException(name + ": no PEM block (-----BEGIN ...-----)");
    }
    return out;
  }

  /** PrivateKeyInfo ::= SEQUENCE { version 0, AlgorithmIdentifier, OCTET STRING privateKey }. */
  private static byte[] privateKeyInfo(byte[] algorithmIdentifier, byte[] privateKey) {
    ByteArrayOutputStream s = new ByteArrayOutputStream();
    s.writeBytes(hex("020100"));
    s.writeBytes(algorithmIdentifier);
    s.writeBytes(tlv(0x04, privateKey));
    return tlv(0x30, s.toByteArray());
  }

  /** The curve OID (as a whole TLV) of a SEC 1 ECPrivateKey's {@code [0] parameters}; null when it has none. */
  private static byte[] sec1Curve(byte[] der) {
    Der seq = new Der(der, 0, der.length);
    Der body = seq.enter(0x30);
    body.skip(0x02); // version 1
    body.skip(0x04); // privateKey
    while (body.more()) {
      int tag = body.peekTag();
      if (tag == 0xa0) {
        Der params = body.enter(0xa0);
        return params.whole(0x06);
      }
      body.skip(tag);
    }
    return null;
  }

  private static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream s = new ByteArrayOutputStream();
    s.write(tag);
    int n = content.length;
    if (n < 0x80) {
      s.write(n);
    } else if (n < 0x100) {
      s.write(0x81);
      s.write(n);
    } else if (n < 0x10000) {
      s.write(0x82);
      s.write(n >> 8);
      s.write(n);
    } else {
      s.write(0x83);
      s.write(n >> 16);
      s.write(n >> 8);
      s.write(n);
    }
    s.writeBytes(content);
    return s.toByteArray();
  }

  private static byte[] hex(String h) {
    return java.util.HexFormat.of().parseHex(h);
  }

  /** A bounded reader of DER TLVs within {@code [pos, end)} of {@code b}; malformed input throws IllegalArgumentException. */
  private static final class Der {
    private final byte[] b;
    private int pos;
    private final int end;

    Der(byte[] b, int pos, int end) {
      this.b = b;
      this.pos = pos;
      this.end = end;
    }

    boolean more() {
      return pos < end;
    }

    int peekTag() {
      if (pos >= end) {
        throw new IllegalArgumentException("truncated");
      }
      return b[pos] & 0xff;
    }

    /** Reads one TLV of {@code tag}; returns {start of TLV, start of content, end of content}. */
    private int[] next(int tag) {
      int start = pos;
      if (peekTag() != tag) {
        throw new IllegalArgumentException("tag " + Integer.toHexString(peekTag()) + " where " + Integer.toHexString(tag) + " belongs");
      }
      int p = pos + 1;
      if (p >= end) {
        throw new IllegalArgumentException("truncated");
      }
      int len = b[p++] & 0xff;
      if (len >= 0x80) {
        int n = len & 0x7f;
        if (n == 0 || n > 3 || p + n > end) {
          throw new IllegalArgumentException("bad length");
        }
        len = 0;
        for (int i = 0; i < n; i++) {
          len = (len << 8) | (b[p++] & 0xff);
        }
      }
      if (len > end - p) {
        throw new IllegalArgumentException("truncated");
      }
      pos = p + len;
      return new int[] {start, p, p + len};
    }

    Der enter(int tag) {
      int[] r = next(tag);
      return new Der(b, r[1], r[2]);
    }

    void skip(int tag) {
      next(tag);
    }

    byte[] whole(int tag) {
      int[] r = next(tag);
      return java.util.Arrays.copyOfRange(b, r[0], r[2]);
    }
  }
}
