package io.nodeatlas.agent.kubeconfig;

import io.fabric8.kubernetes.client.OAuthTokenProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubeconfig user's {@code tokenFile}: the bearer token is the file's content, read again whenever
 * the file changes (client-go reads a token file periodically and its last good value wins over an
 * inline {@code token}: {@code rest.Config.BearerTokenFile}). fabric8 asks before every request and
 * again after a 401, so a rotated token is used from the next request on. A file that cannot be read
 * keeps the last good token (with one warning per change).
 */
public final class TokenFile implements OAuthTokenProvider {

  private static final Logger LOG = LoggerFactory.getLogger(TokenFile.class);
  /** A token is a few KiB at most (a projected service account token is ~1 KiB). */
  static final int MAX_BYTES = 64 << 10;

  private record Stamp(Object key, java.nio.file.attribute.FileTime modified, long size) {}

  private final Path file;
  private String token;
  private Stamp stamp;

  private TokenFile(Path file, String token, Stamp stamp) {
    this.file = file;
    this.token = token;
    this.stamp = stamp;
  }

  /** Reads the file now; {@code fallback} (the inline token, or null) is used when it cannot be read. */
  public static TokenFile open(Path file, String fallback) throws IOException {
    try {
      Stamp s = stamp(file);
      return new TokenFile(file, read(file), s);
    } catch (IOException e) {
      if (fallback == null || fallback.isEmpty()) {
        throw new IOException("tokenFile " + file + ": " + e.getMessage(), e);
      }
      LOG.warn("cannot read the kubeconfig's tokenFile, using its token until it reads file={} err=\"{}\"", file, e.getMessage());
      return new TokenFile(file, fallback, null);
    }
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized String getToken() {
    Stamp now;
    try {
      now = stamp(file);
    } catch (IOException e) {
      return token;
    }
    if (Objects.equals(now, stamp)) {
      return token;
    }
    stamp = now;
    try {
      String next = read(file);
      if (!next.equals(token)) {
        LOG.info("bearer token re-read from the kubeconfig's tokenFile file={}", file);
      }
      token = next;
    } catch (IOException e) {
      LOG.warn("the kubeconfig's tokenFile changed but does not read; keeping the token in use file={} err=\"{}\"", file,
          e.getMessage());
    }
    return token;
  }

  private static Stamp stamp(Path file) throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
    return new Stamp(a.fileKey(), a.lastModifiedTime(), a.size());
  }

  private static String read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("not a regular file");
    }
    byte[] b;
    try (InputStream in = Files.newInputStream(file)) {
      b = in.readNBytes(MAX_BYTES + 1);
    }
    if (b.length > MAX_BYTES) {
      throw new IOException("more than " + MAX_BYTES + " bytes");
    }
    String t = new String(b, StandardCharsets.UTF_8).strip();
    if (t.isEmpty()) {
      throw new IOException("empty");
    }
    if (t.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw new IOException("not one line of printable ASCII");
    }
    return t;
  }
}
