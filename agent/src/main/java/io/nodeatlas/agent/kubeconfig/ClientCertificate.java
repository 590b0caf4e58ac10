package io.nodeatlas.agent.kubeconfig;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubeconfig user's client certificate, as a key manager that reads its files again when they
 * change on disk, as client-go does for {@code client-certificate}/{@code client-key} files (its
 * transport's certificate rotation: the kubelet's own certificate is renewed in place). Each handshake
 * looks at the files' change time and size; a new pair is taken once it reads whole and matches, and a
 * half-written one keeps the pair before it (with one warning per change). Inline data never changes.
 */
public final class ClientCertificate extends X509ExtendedKeyManager {

  private static final Logger LOG = LoggerFactory.getLogger(ClientCertificate.class);
  /** Aliases name the pair's generation, so one handshake gets the chain and key of the same pair. */
  private static final String ALIAS = "kubeconfig-user-";

  /** Where the PEM text comes from: a file (read again when it changes) or the kubeconfig's inline data. */
  public record Source(String name, Path file, byte[] data) {
    static Source file(String member, Path file) {
      return new Source(member + " " + file, file, null);
    }

    static Source data(String member, byte[] data) {
      return new Source(member, null, data);
    }
  }

  private record Stamp(Object key, java.nio.file.attribute.FileTime modified, long size) {}

  private final Source cert;
  private final Source key;
  private volatile PemKeyPair pair;
  /** The pair before {@link #pair}, for a handshake that chose its alias just before a change. */
  private volatile PemKeyPair previous;
  /** Changes each time another pair is taken: a connection made before knows it is stale. */
  private volatile long generation;
  private Stamp certStamp;
  private Stamp keyStamp;

  private ClientCertificate(Source cert, Source key, PemKeyPair pair, Stamp certStamp, Stamp keyStamp) {
    this.cert = cert;
    this.key = key;
    this.pair = pair;
    this.certStamp = certStamp;
    this.keyStamp = keyStamp;
  }

  /** Reads the pair now; a bad one is an error that names the source and the cause. */
  public static ClientCertificate load(Source cert, Source key) throws IOException, PemKeyPair.BadPemException {
    Stamp cs;
    Stamp ks;
    try {
      cs = stamp(cert);
    } catch (IOException e) {
      throw new IOException(cert.name() + ": cannot read: " + e, e);
    }
    try {
      ks = stamp(key);
    } catch (IOException e) {
      throw new IOException(key.name() + ": cannot read: " + e, e);
    }
    PemKeyPair pair = PemKeyPair.parse(read(cert), cert.name(), read(key), key.name());
    return new ClientCertificate(cert, key, pair, cs, ks);
  }

  /** Where the certificate comes from, for messages: {@code client-certificate /path} or {@code client-certificate-data}. */
  public String describe() {
    return cert.name().equals(key.name().replace("client-key", "client-certificate")) ? cert.name()
        : cert.name() + " and " + key.name();
  }

  public long generation() {
    return generation;
  }

  /** The certificate's subject, for messages. */
  public String subject() {
    return pair.chain().get(0).getSubjectX500Principal().getName();
  }

  /**
   * Reads the files again when either changed since the pair was taken; returns whether another pair
   * is now in use.
   */
  public synchronized boolean refresh() {
    Stamp cs;
    Stamp ks;
    try {
      cs = stamp(cert);
      ks = stamp(key);
    } catch (IOException e) {
      return false; // a file being replaced right now: the next look finds it
    }
    if (Objects.equals(cs, certStamp) && Objects.equals(ks, keyStamp)) {
      return false;
    }
    try {
      PemKeyPair next = PemKeyPair.parse(read(cert), cert.name(), read(key), key.name());
      boolean changed = !next.chain().get(0).equals(pair.chain().get(0)) || !next.key().equals(pair.key());
      certStamp = cs;
      keyStamp = ks;
      if (changed) {
        previous = pair;
        pair = next;
        generation++;
        LOG.info("client certificate re-read from disk source=\"{}\" subject=\"{}\" notAfter={}", describe(), subject(),
            next.chain().get(0).getNotAfter().toInstant());
      }
      return changed;
    } catch (IOException | PemKeyPair.BadPemException e) {
      // Remember the stamps: one warning per change, not one per handshake.
      certStamp = cs;
      keyStamp = ks;
      LOG.warn("client certificate changed on disk but does not read; keeping the one in use source=\"{}\" err=\"{}\"",
          describe(), e.getMessage());
      return false;
    }
  }

  private static Stamp stamp(Source s) throws IOException {
    if (s.file() == null) {
      return null;
    }
    BasicFileAttributes a = Files.readAttributes(s.file(), BasicFileAttributes.class);
    return new Stamp(a.fileKey(), a.lastModifiedTime(), a.size());
  }

  private static byte[] read(Source s) throws IOException {
    if (s.file() == null) {
      return s.data();
    }
    if (!Files.isRegularFile(s.file())) {
      throw new IOException(s.name() + ": not a regular file");
    }
    try (InputStream in = Files.newInputStream(s.file())) {
      byte[] b = in.readNBytes(PemKeyPair.MAX_BYTES + 1);
      if (b.length > PemKeyPair.MAX_BYTES) {
        throw new IOException(s.name() + ": more than " + PemKeyPair.MAX_BYTES + " bytes");
      }
      return b;
    } catch (IOException e) {
      throw e.getMessage() != null && e.getMessage().startsWith(s.name()) ? e : new IOException(s.name() + ": " + e, e);
    }
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return new String[] {ALIAS + generation};
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    refresh();
    return ALIAS + generation;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    refresh();
    return ALIAS + generation;
  }

  /** The pair an alias of ours names: the current one or the one just before it. */
  private PemKeyPair pairOf(String alias) {
    if (alias == null || !alias.startsWith(ALIAS)) {
      return null;
    }
    long g;
    try {
      g = Long.parseLong(alias.substring(ALIAS.length()));
    } catch (NumberFormatException e) {
      return null;
    }
    synchronized (this) {
      return g == generation ? pair : g == generation - 1 ? previous : null;
    }
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    PemKeyPair p = pairOf(alias);
    return p == null ? null : p.chain().toArray(new X509Certificate[0]);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    PemKeyPair p = pairOf(alias);
    return p == null ? null : p.key();
  }
}
