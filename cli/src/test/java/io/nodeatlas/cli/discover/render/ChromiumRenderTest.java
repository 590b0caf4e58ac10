package io.nodeatlas.cli.discover.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.report.NodeReport;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SVG as a browser draws it: headless Chromium (Debian package {@code chromium}, which {@code .ci/run}
 * installs) lays out a page holding the picture, and a script measures every {@code <text>} with
 * {@code getBBox()} in the fonts the browser really uses: no two texts overlap, and each stays inside the
 * rectangle of its box. The renderer's own arithmetic (a column estimate per character) is only right if
 * this holds. Skipped where Chromium is not installed, unless {@code -Dnodeatlas.render.required=true}
 * (set by {@code .ci/run}) makes it a failure.
 */
class ChromiumRenderTest {

  /** Generous: Chromium starts and lays out the page in about a second. */
  static final long TIMEOUT_SECONDS = 120;

  private static Path chromium;

  @TempDir Path dir;

  @BeforeAll
  static void findChromium() {
    Optional<Path> found = find();
    if (found.isEmpty()) {
      String why = "headless Chromium not found on PATH (chromium, chromium-browser); install the Debian package "
          + "chromium (.ci/run does) to check the SVG's text placement in a browser";
      assertThat(Boolean.getBoolean("nodeatlas.render.required")).as(why + "; -Dnodeatlas.render.required=true").isFalse();
      Assumptions.abort(why);
    }
    chromium = found.get();
  }

  private static Optional<Path> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String name : List.of("chromium", "chromium-browser")) {
      for (String entry : path.split(File.pathSeparator)) {
        Path candidate = Path.of(entry.isEmpty() ? "." : entry, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  @Test
  void theTwoSocketNodeHasNoOverlappingTextInABrowser() throws Exception {
    assertDrawsCleanly(RenderFixtures.twoSocketNode(), false);
  }

  @Test
  void wholePciAndNoPciTreeDrawCleanly() throws Exception {
    assertDrawsCleanly(RenderFixtures.twoSocketNode(), true);
    assertDrawsCleanly(RenderFixtures.noPciTree(), false);
  }

  @Test
  void hostileTextStaysTextAndInsideItsBoxes() throws Exception {
    assertDrawsCleanly(RenderFixtures.hostile(), false);
  }

  @Test
  void theHarnessSeesOverlapsAndTextOutsideItsBox() throws Exception {
    // A picture broken on purpose: two texts on one spot, and one far wider than its box.
    String broken = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"100\" "
        + "font-family=\"" + SvgRenderer.FONT_FAMILY + "\" font-size=\"12\">"
        + "<g class=\"box\"><rect x=\"0\" y=\"0\" width=\"400\" height=\"100\"/>"
        + "<text x=\"10\" y=\"20\">first</text><text x=\"14\" y=\"24\">second</text>"
        + "<g class=\"box\"><rect x=\"10\" y=\"50\" width=\"40\" height=\"20\"/><text x=\"12\" y=\"64\">far too wide</text></g>"
        + "</g></svg>\n";
    List<String> lines = measure(broken).lines().toList();
    assertThat(lines.get(0)).isEqualTo("texts=3");
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("overlap: \"first\"").contains("\"second\""))
        .anySatisfy(l -> assertThat(l).startsWith("outside its box: \"far too wide\""));
  }

  private void assertDrawsCleanly(NodeReport report, boolean wholePci) throws Exception {
    String svg = new SvgRenderer(wholePci).render(report);
    int texts = SvgCheck.texts(SvgCheck.parse(svg)).size();
    String result = measure(svg);
    assertThat(result).as("the page's script ran").startsWith("texts=");
    List<String> lines = result.lines().toList();
    assertThat(lines.get(0)).as("the browser found every text element the document has").isEqualTo("texts=" + texts);
    assertThat(lines.subList(1, lines.size())).as("text placement problems in Chromium").isEmpty();
  }

  /** The harness: the SVG inline in a page whose script writes what it measured into the DOM. */
  static final String SCRIPT = """
      (function () {
        const out = [];
        const result = document.getElementById('result');
        try {
          const tol = 0.5;
          const svg = document.querySelector('svg');
          if (svg.querySelectorAll('script, foreignObject, image').length) out.push('active content in the SVG');
          const visible = t => [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
          const rectOf = t => {
            for (let g = t.parentElement; g; g = g.parentElement) {
              if (g.tagName === 'g' && g.getAttribute('class') === 'box') {
                return [...g.children].find(c => c.tagName === 'rect');
              }
            }
            return null;
          };
          const f = b => '[' + [b.x, b.y, b.width, b.height].map(v => v.toFixed(1)).join(' ') + ']';
          const items = [...svg.querySelectorAll('text')].map(t => ({ t, s: visible(t), b: t.getBBox(), r: rectOf(t) }));
          for (const it of items) {
            if (it.b.width <= 0 || it.b.height <= 0) { out.push('not drawn: ' + it.s); continue; }
            if (!it.r) { out.push('no box: ' + it.s); continue; }
            const r = it.r.getBBox();
            const b = it.b;
            if (b.x < r.x - tol || b.y < r.y - tol || b.x + b.width > r.x + r.width + tol || b.y + b.height > r.y + r.height + tol) {
              out.push('outside its box: "' + it.s + '" ' + f(b) + ' in ' + f(r));
            }
          }
          for (let i = 0; i < items.length; i++) {
            for (let j = i + 1; j < items.length; j++) {
              const a = items[i].b, b = items[j].b;
              if (a.x < b.x + b.width - tol && b.x < a.x + a.width - tol && a.y < b.y + b.height - tol && b.y < a.y + a.height - tol) {
                out.push('overlap: "' + items[i].s + '" ' + f(a) + ' and "' + items[j].s + '" ' + f(b));
              }
            }
          }
          result.textContent = 'texts=' + items.length + (out.length ? '\\n' + out.join('\\n') : '');
        } catch (e) {
          result.textContent = 'script failed: ' + e;
        }
      })();
      """;

  private String measure(String svg) throws Exception {
    String inline = svg.substring(svg.indexOf("<svg"));
    String page = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>render check</title></head>"
        + "<body style=\"margin:0\">\n" + inline + "<pre id=\"result\">pending</pre>\n<script>" + SCRIPT + "</script>\n</body></html>\n";
    Path html = dir.resolve("page.html");
    Files.writeString(html, page, StandardCharsets.UTF_8);
    List<String> command = List.of(chromium.toString(), "--headless", "--disable-gpu", "--no-sandbox",
        "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
        "--user-data-dir=" + dir.resolve("profile"), "--window-size=2400,2400", "--dump-dom", html.toUri().toString());
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(dir.resolve("chromium.err").toFile());
    pb.environment().put("HOME", dir.toString());
    Process p = pb.start();
    try {
      CompletableFuture<String> dom = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("chromium did not finish within " + TIMEOUT_SECONDS + " s; " + tail(dir.resolve("chromium.err")));
      }
      String out = dom.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Matcher m = Pattern.compile("<pre id=\"result\">(.*?)</pre>", Pattern.DOTALL).matcher(out);
      assertThat(m.find()).as("chromium printed the page (exit " + p.exitValue() + "); " + tail(dir.resolve("chromium.err")))
          .isTrue();
      return unescape(m.group(1));
    } finally {
      // Chromium forks helpers (zygote, GPU, renderer): end them with it, whatever happened.
      try (Stream<ProcessHandle> children = p.descendants()) {
        children.forEach(ProcessHandle::destroyForcibly);
      }
      p.destroyForcibly();
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return "stderr: " + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    } catch (IOException e) {
      return "no stderr";
    }
  }

  private static String unescape(String html) {
    return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
        .replace("&nbsp;", "\u00a0").replace("&amp;", "&");
  }
}
