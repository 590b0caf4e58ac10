package io.nodeatlas.agent.ops;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * Routes all logging (ours through SLF4J → java.util.logging, gRPC's and fabric8's likewise) to stderr
 * as one line per event, either klog-style text or JSON lines. Messages are
 * written as "what happened key=value ..." so both formats stay greppable.
 */
public final class LogSetup {

  /** Output formats of {@code --log-format}. */
  public enum Format { TEXT, JSON }

  private LogSetup() {}

  /**
   * Installs the format on the root logger. Verbosity 0 logs info and above; 1–3 add our debug
   * messages; 4 and more also the libraries' debug output.
   */
  public static void install(Format format, int verbosity, PrintStream err) {
    Logger root = Logger.getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    Handler handler = new StreamHandler(err, format == Format.JSON ? new JsonFormatter() : new TextFormatter()) {
      @Override
      public synchronized void publish(LogRecord record) {
        super.publish(record);
        flush();
      }
    };
    handler.setLevel(Level.ALL);
    root.addHandler(handler);
    root.setLevel(verbosity >= 4 ? Level.FINE : Level.INFO);
    Logger.getLogger("io.nodeatlas").setLevel(verbosity >= 1 ? Level.FINE : Level.INFO);
    // The JDK client logs every request at INFO through this logger on some versions.
    Logger.getLogger("jdk.internal.httpclient").setLevel(Level.WARNING);
  }

  static char severity(Level level) {
    if (level.intValue() >= Level.SEVERE.intValue()) {
      return 'E';
    }
    if (level.intValue() >= Level.WARNING.intValue()) {
      return 'W';
    }
    return 'I';
  }

  /** {@code I1122 10:15:03.123456 main ClaimPreparer] message key=value}. */
  static final class TextFormatter extends Formatter {
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("MMdd HH:mm:ss.SSSSSS", Locale.ROOT).withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord r) {
      StringBuilder b = new StringBuilder(128);
      b.append(severity(r.getLevel())).append(TIME.format(r.getInstant())).append(' ')
          .append(shortName(r.getLoggerName())).append("] ").append(formatMessage(r));
      if (r.getThrown() != null) {
        b.append(" err=\"").append(String.valueOf(r.getThrown())).append('"');
      }
      return b.append('\n').toString();
    }
  }

  /** One JSON object per line: {@code ts} (seconds), {@code level}, {@code logger}, {@code msg}, {@code err}. */
  static final class JsonFormatter extends Formatter {
    @Override
    public String format(LogRecord r) {
      Instant t = r.getInstant();
      StringBuilder b = new StringBuilder(160).append("{\"ts\":").append(t.getEpochSecond()).append('.')
          .append(String.format(Locale.ROOT, "%06d", t.getNano() / 1000))
          .append(",\"level\":\"").append(r.getLevel().getName().toLowerCase(Locale.ROOT))
          .append("\",\"logger\":");
      quote(b, r.getLoggerName() == null ? "" : r.getLoggerName());
      b.append(",\"msg\":");
      quote(b, formatMessage(r));
      if (r.getThrown() != null) {
        b.append(",\"err\":");
        quote(b, String.valueOf(r.getThrown()));
      }
      return b.append("}\n").toString();
    }

    static void quote(StringBuilder b, String s) {
      b.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (c < 0x20) {
              b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      b.append('"');
    }
  }

  private static String shortName(String logger) {
    if (logger == null) {
      return "-";
    }
    int dot = logger.lastIndexOf('.');
    return dot < 0 ? logger : logger.substring(dot + 1);
  }

}
