package io.nodeatlas.cli.discover.render;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --color}: auto colours a real terminal only; an explicit choice wins over NO_COLOR (no-color.org). */
class ColorModeTest {

  static final Terminal XTERM = new Terminal(true, "xterm-256color", null);

  @Test
  void autoColoursOnlyAnInteractiveTerminalThatIsNotDumbWithoutNoColor() {
    assertThat(ColorMode.AUTO.colours(XTERM)).isTrue();
    assertThat(ColorMode.AUTO.colours(new Terminal(true, null, null))).isTrue();
    assertThat(ColorMode.AUTO.colours(Terminal.PIPE)).isFalse();
    assertThat(ColorMode.AUTO.colours(new Terminal(false, "xterm", null))).isFalse();
    assertThat(ColorMode.AUTO.colours(new Terminal(true, "dumb", null))).isFalse();
    assertThat(ColorMode.AUTO.colours(new Terminal(true, "xterm", "1"))).isFalse();
    assertThat(ColorMode.AUTO.colours(new Terminal(true, "xterm", "0"))).as("any non-empty value").isFalse();
    assertThat(ColorMode.AUTO.colours(new Terminal(true, "xterm", ""))).as("empty means unset").isTrue();
  }

  @Test
  void explicitChoicesWin() {
    assertThat(ColorMode.ALWAYS.colours(new Terminal(false, "dumb", "1"))).isTrue();
    assertThat(ColorMode.NEVER.colours(XTERM)).isFalse();
  }
}
