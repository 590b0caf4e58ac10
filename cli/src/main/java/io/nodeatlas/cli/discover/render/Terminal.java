package io.nodeatlas.cli.discover.render;

import java.io.Console;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * What {@code --color=auto} looks at, captured once at the edge of the program so that renderers and
 * their tests never read the process environment themselves.
 *
 * @param interactive standard output is a terminal
 * @param term the {@code TERM} variable, or null
 * @param noColorValue the {@code NO_COLOR} variable, or null (https://no-color.org: set and not empty
 *     means no colour, whatever its value)
 */
public record Terminal(boolean interactive, String term, String noColorValue) {

  /** A pipe or file: never coloured in auto mode. */
  public static final Terminal PIPE = new Terminal(false, null, null);

  /** The terminal of this process. */
  public static Terminal current() {
    Map<String, String> env = System.getenv();
    return new Terminal(isTerminal(System.console()), env.get("TERM"), env.get("NO_COLOR"));
  }

  public boolean noColor() {
    return noColorValue != null && !noColorValue.isEmpty();
  }

  public boolean dumb() {
    return "dumb".equals(term);
  }

  /**
   * Before JDK 22 {@code System.console()} is null unless both standard streams are a terminal; from
   * JDK 22 it is a console even when output is redirected, and {@code Console.isTerminal()} (new in 22)
   * tells. This build targets Java 17, so the newer method is looked up rather than called.
   */
  private static boolean isTerminal(Console console) {
    if (console == null) {
      return false;
    }
    try {
      Method m = Console.class.getMethod("isTerminal");
      return (Boolean) m.invoke(console);
    } catch (NoSuchMethodException e) {
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }
}
