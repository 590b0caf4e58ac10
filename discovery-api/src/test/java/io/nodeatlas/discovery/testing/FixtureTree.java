package io.nodeatlas.discovery.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a host tree (sysfs, procfs, dev) for tests: files with exact content, symlinks with exact
 * targets (relative, as sysfs writes them), directories. Shared with every discovery module through
 * the discovery-api test jar.
 */
public final class FixtureTree {

  private final Path root;

  private FixtureTree(Path root) {
    this.root = root;
  }

  public static FixtureTree at(Path root) {
    return new FixtureTree(root);
  }

  public Path root() {
    return root;
  }

  public Path path(String relative) {
    return root.resolve(relative);
  }

  /** Writes {@code content} verbatim (include the trailing newline sysfs prints). */
  public FixtureTree file(String relative, String content) {
    return bytes(relative, content.getBytes(StandardCharsets.UTF_8));
  }

  public FixtureTree bytes(String relative, byte[] content) {
    Path p = root.resolve(relative);
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** A sysfs-style value: {@code value} plus a newline. */
  public FixtureTree value(String relative, Object value) {
    return file(relative, value + "\n");
  }

  public FixtureTree dir(String relative) {
    try {
      Files.createDirectories(root.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** A symlink at {@code relative} pointing at {@code target} exactly as given (may dangle). */
  public FixtureTree symlink(String relative, String target) {
    Path p = root.resolve(relative);
    try {
      Files.createDirectories(p.getParent());
      Files.deleteIfExists(p);
      Files.createSymbolicLink(p, Path.of(target));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  public FixtureTree delete(String relative) {
    try {
      Files.deleteIfExists(root.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }
}
