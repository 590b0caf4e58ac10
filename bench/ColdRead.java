import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The Java floor of bench/discover-vs-lstopo.sh (issue 14, row 1), compiled and run by that script
 * with the launcher's java and JVM flags: a whole JVM process that reads the files and lists the
 * directories one `discover` run opened (a bench/floor-reader.c list, "F path" / "D path") and prints
 * them as one JSON object, and does nothing else: no command line, no parsing, no model. Each file gets
 * the type check a Java 17 reader of an untrusted tree needs (an lstat first: the JDK opens without
 * O_NONBLOCK, so a FIFO would block the open) and a non-following open.
 *   java ColdRead LIST
 */
public final class ColdRead {

  public static void main(String[] args) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
    out.write('{');
    boolean first = true;
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      Path p = Path.of(line.substring(2));
      StringBuilder value = new StringBuilder();
      try {
        if (line.startsWith("D ")) {
          try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
            for (Path e : entries) {
              value.append(e.getFileName()).append(' ');
            }
          }
        } else {
          if (!Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isRegularFile()) {
            continue;
          }
          try (SeekableByteChannel in = Files.newByteChannel(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            buffer.clear();
            while (buffer.hasRemaining() && in.read(buffer) > 0) {
              // to EOF, or the buffer's end
            }
          }
          value.append(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip());
        }
      } catch (IOException e) {
        continue;
      }
      out.write(first ? "\n" : ",\n");
      first = false;
      string(out, p.toString());
      out.write(':');
      string(out, value);
    }
    out.write("\n}\n");
    out.flush();
  }

  /** A JSON string (RFC 8259 section 7). */
  private static void string(Writer out, CharSequence s) throws IOException {
    out.write('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.write('\\');
        out.write(c);
      } else if (c < 0x20) {
        out.write(String.format("\\u%04x", (int) c));
      } else {
        out.write(c);
      }
    }
    out.write('"');
  }
}
