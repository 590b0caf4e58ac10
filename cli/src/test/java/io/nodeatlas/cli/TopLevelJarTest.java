package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The launcher runs {@code --version} and {@code --help} alone from nodeatlas-top.jar, which holds only
 * the entries cli/pom.xml's top-level-jar execution lists: Main, run in a class loader that serves
 * nothing else of ours, prints picocli's answers, so no class of the command tree is needed for them.
 */
class TopLevelJarTest {

  /** The entries of the top-level jar, as cli/pom.xml lists them. */
  private static List<String> entries() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    int start = pom.indexOf("<id>top-level-jar</id>");
    assertThat(start).as("cli/pom.xml has the top-level-jar execution").isPositive();
    String execution = pom.substring(start, pom.indexOf("</execution>", start));
    List<String> entries = new ArrayList<>();
    Matcher m = Pattern.compile("<include>(io/nodeatlas/[^<]+)</include>").matcher(execution);
    while (m.find()) {
      entries.add(m.group(1));
    }
    return entries;
  }

  /** Serves only {@code entries} from the test's class path; every other class of ours is missing. */
  private static final class TopLevelLoader extends ClassLoader {
    private final List<String> entries;

    TopLevelLoader(List<String> entries) {
      super(ClassLoader.getPlatformClassLoader());
      this.entries = entries;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      String path = name.replace('.', '/') + ".class";
      if (!entries.contains(path)) {
        throw new ClassNotFoundException(name + " is not in the top-level jar");
      }
      try (InputStream in = TopLevelJarTest.class.getClassLoader().getResourceAsStream(path)) {
        byte[] bytes = in.readAllBytes();
        return defineClass(name, bytes, 0, bytes.length);
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
    }

    @Override
    public InputStream getResourceAsStream(String name) {
      return entries.contains(name) ? TopLevelJarTest.class.getClassLoader().getResourceAsStream(name) : null;
    }

    @Override
    protected java.net.URL findResource(String name) {
      return entries.contains(name) ? TopLevelJarTest.class.getClassLoader().getResource(name) : null;
    }
  }

  /** Main.run(args) loaded from the top-level jar's entries only: its exit status and standard output. */
  private static NodeAtlasRun.Result fromTopLevelJar(String... args) throws Exception {
    Class<?> main = Class.forName("io.nodeatlas.cli.Main", true, new TopLevelLoader(entries()));
    Method run = main.getMethod("run", String[].class);
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int status;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      status = (int) run.invoke(null, (Object) args);
    } finally {
      System.setOut(saved);
    }
    return new NodeAtlasRun.Result(status, out.toString(StandardCharsets.UTF_8), "");
  }

  @Test
  void versionAndHelpNeedOnlyTheTopLevelJar() throws Exception {
    // Under the test no terminal is attached: picocli's help is the plain one, as the launcher's in a pipe.
    for (String arg : List.of("--version", "-V", "--help", "-h")) {
      NodeAtlasRun.Result picocli = NodeAtlasRun.run(arg);
      NodeAtlasRun.Result top = fromTopLevelJar(arg);
      assertThat(top.status()).as(arg).isEqualTo(picocli.status()).isZero();
      assertThat(top.out()).as(arg).isEqualTo(picocli.out()).isNotEmpty();
    }
  }
}
