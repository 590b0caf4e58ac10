package io.nodeatlas.cli;

import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.spi.DiscoverySource;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.Set;

/**
 * The discovery sources of this command's class path. Where the launcher names its jar's provider
 * configuration file, extracted by the build beside the jar ({@code nodeatlas.discovery.services}),
 * the sources are the providers that file lists, instantiated as {@link java.util.ServiceLoader} does
 * for a class path provider (public class, public no-argument constructor), so the JVM never opens
 * the jar; otherwise ServiceLoader finds them. A speed path for the rows of
 * bench/discover-snapshots.sh, which fail by more without it (docs/design/speed-paths.md).
 */
final class InstalledSources {

  /** The system property naming the extracted provider configuration file. */
  static final String SERVICES_PROPERTY = "nodeatlas.discovery.services";

  /** Far above any real provider list; a larger file is not ours. */
  private static final int MAX_BYTES = 64 * 1024;

  private InstalledSources() {}

  /** The sources {@code loader} provides: from the file the property names, else ServiceLoader's. */
  static DiscoverySources load(ClassLoader loader) {
    return load(loader, System.getProperty(SERVICES_PROPERTY));
  }

  /** The sources {@code loader} provides: those {@code file} lists, else (null or empty) ServiceLoader's. */
  static DiscoverySources load(ClassLoader loader, String file) {
    if (file == null || file.isEmpty()) {
      return DiscoverySources.load(loader);
    }
    return DiscoverySources.of(providers(Path.of(file), loader));
  }

  /**
   * The providers a provider configuration file lists, in its order, each once (the syntax of
   * {@link java.util.ServiceLoader}: UTF-8, one binary class name a line, {@code #} starts a comment).
   */
  static List<DiscoverySource> providers(Path file, ClassLoader loader) {
    List<DiscoverySource> out = new ArrayList<>();
    for (String name : names(file)) {
      out.add(instantiate(name, loader));
    }
    return out;
  }

  static Set<String> names(Path file) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (IOException e) {
      throw fail(file + ": cannot read the provider list (" + e.getMessage() + "); rebuild with NODEATLAS_REBUILD=1");
    }
    if (bytes.length > MAX_BYTES) {
      throw fail(file + ": the provider list is over " + MAX_BYTES + " bytes");
    }
    // Bytes that are not UTF-8 become U+FFFD, which no class name holds (ServiceLoader reads so too).
    String text = new String(bytes, StandardCharsets.UTF_8);
    Set<String> names = new LinkedHashSet<>();
    int lineNumber = 0;
    for (String line : text.split("\n", -1)) {
      lineNumber++;
      int hash = line.indexOf('#');
      String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (name.isEmpty()) {
        continue;
      }
      if (!isBinaryName(name)) {
        throw fail(file + ":" + lineNumber + ": not a class name");
      }
      names.add(name);
    }
    return names;
  }

  private static boolean isBinaryName(String name) {
    int start = 0;
    while (true) {
      int dot = name.indexOf('.', start);
      int end = dot < 0 ? name.length() : dot;
      if (end == start || !Character.isJavaIdentifierStart(name.codePointAt(start))) {
        return false;
      }
      for (int i = start + Character.charCount(name.codePointAt(start)); i < end; i += Character.charCount(name.codePointAt(i))) {
        if (!Character.isJavaIdentifierPart(name.codePointAt(i))) {
          return false;
        }
      }
      if (dot < 0) {
        return true;
      }
      start = dot + 1;
    }
  }

  private static DiscoverySource instantiate(String name, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw fail("Provider " + name + " not found");
    }
    if (!DiscoverySource.class.isAssignableFrom(type)) {
      throw fail("Provider " + name + " not a subtype");
    }
    if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
      throw fail("Provider " + name + " is not a public concrete class");
    }
    try {
      return (DiscoverySource) type.getConstructor().newInstance();
    } catch (NoSuchMethodException e) {
      throw fail("Provider " + name + " has no public no-argument constructor");
    } catch (InvocationTargetException e) {
      throw new ServiceConfigurationError(DiscoverySource.class.getName() + ": Provider " + name
          + " could not be instantiated", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new ServiceConfigurationError(DiscoverySource.class.getName() + ": Provider " + name
          + " could not be instantiated", e);
    }
  }

  private static ServiceConfigurationError fail(String message) {
    return new ServiceConfigurationError(DiscoverySource.class.getName() + ": " + message);
  }
}
