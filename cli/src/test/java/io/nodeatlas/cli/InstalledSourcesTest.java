package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sources named by the provider list the build copies out of the discover jar are the ones
 * ServiceLoader finds, and a list that cannot be trusted fails as ServiceLoader fails, naming the line.
 */
class InstalledSourcesTest {

  private static final ClassLoader LOADER = InstalledSourcesTest.class.getClassLoader();

  @TempDir Path dir;

  private Path file(String text) throws Exception {
    Path f = dir.resolve("services");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  private static List<Class<?>> classes(DiscoverySources sources) {
    List<Class<?>> out = new ArrayList<>();
    for (DiscoverySource s : sources.all()) {
      out.add(s.getClass());
    }
    return out;
  }

  @Test
  void theListedProvidersAreServiceLoadersWithCommentsBlanksAndRepeatsAsItReadsThem() throws Exception {
    DiscoverySources viaServiceLoader = DiscoverySources.load(LOADER);
    assertThat(viaServiceLoader.names()).as("the cli tests see the installed sources").contains("cpu-numa");
    StringBuilder text = new StringBuilder("# merged by the shade plugin\n\n");
    for (DiscoverySource s : viaServiceLoader.all()) {
      text.append("  ").append(s.getClass().getName()).append("\t# ").append(s.name()).append("\r\n");
    }
    text.append(viaServiceLoader.all().get(0).getClass().getName()).append('\n');
    DiscoverySources listed = InstalledSources.load(LOADER, file(text.toString()).toString());
    assertThat(listed.names()).isEqualTo(viaServiceLoader.names());
    assertThat(classes(listed)).isEqualTo(classes(viaServiceLoader));
    assertThat(listed.select("cpu-numa")).hasSize(1);
  }

  @Test
  void noFileNamedIsServiceLoader() {
    assertThat(InstalledSources.load(LOADER, null).names()).isEqualTo(DiscoverySources.load(LOADER).names());
    assertThat(InstalledSources.load(LOADER, "").names()).isEqualTo(DiscoverySources.load(LOADER).names());
  }

  @Test
  void anUntrustworthyListFailsNamingWhatIsWrong() throws Exception {
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file("com.example.NoSuchSource\n").toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("com.example.NoSuchSource not found");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file("java.lang.String\n").toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("java.lang.String not a subtype");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file(NoDefaultConstructor.class.getName()).toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("no public no-argument constructor");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file(NotPublic.class.getName()).toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("not a public concrete class");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file("# ok\nio.nodeatlas.Two Names\n").toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining(":2: not a class name");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file("a..b\n").toString()))
        .hasMessageContaining(":1: not a class name");
    assertThatThrownBy(() -> InstalledSources.load(LOADER, dir.resolve("absent").toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("cannot read the provider list")
        .hasMessageContaining("NODEATLAS_REBUILD=1");
    Path big = dir.resolve("big");
    Files.write(big, new byte[64 * 1024 + 1]);
    assertThatThrownBy(() -> InstalledSources.load(LOADER, big.toString())).hasMessageContaining("over 65536 bytes");
    Path latin1 = dir.resolve("latin1");
    Files.write(latin1, new byte[] {'a', (byte) 0xe9, '\n'});
    assertThatThrownBy(() -> InstalledSources.load(LOADER, latin1.toString())).hasMessageContaining(":1: not a class name");
  }

  @Test
  void aFailingConstructorIsReportedWithItsCause() throws Exception {
    assertThatThrownBy(() -> InstalledSources.load(LOADER, file(Throws.class.getName()).toString()))
        .isInstanceOf(ServiceConfigurationError.class).hasMessageContaining("could not be instantiated")
        .hasRootCauseMessage("no host");
  }

  /** A source ServiceLoader could not instantiate either. */
  public static final class NoDefaultConstructor extends Stub {
    public NoDefaultConstructor(int unused) {}
  }

  static final class NotPublic extends Stub {}

  /** A source whose constructor fails. */
  public static final class Throws extends Stub {
    public Throws() {
      throw new IllegalStateException("no host");
    }
  }

  abstract static class Stub implements DiscoverySource {
    @Override
    public String name() {
      return "stub";
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      throw new UnsupportedOperationException("never run");
    }
  }
}
