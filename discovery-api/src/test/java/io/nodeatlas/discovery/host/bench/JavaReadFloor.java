package io.nodeatlas.discovery.host.bench;

import io.nodeatlas.discovery.testing.CpuTimedRuns;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The Java floor of bench/inprocess.sh (issue 14, rows 3 and 4): reads the files and lists the
 * directories of a bench/floor-reader.c list ("F path" / "D path") with the JDK's own calls and no
 * parsing, no model and no {@code HostFs}: what any Java reader of that tree pays, next to the C loop.
 * <ul>
 *   <li>{@code plain}: open, read to EOF, close, the C loop's own calls (no check at all);
 *   <li>{@code checked}: an {@code lstat} before each open, then a non-following open of regular files
 *       only. That is the least a Java 17 reader of an untrusted tree can do: the JDK opens without
 *       {@code O_NONBLOCK}, so an {@code open(2)} of a planted FIFO would wait for a writer forever,
 *       and only a look at the type first keeps it out (what {@code HostFs} does in such trees).
 * </ul>
 * Prints {@link CpuTimedRuns}'s "&lt;wall&gt; &lt;thread&gt; &lt;process&gt;" microseconds per round.
 *
 * <p>Arguments: {@code plain|checked <list> <warm-up rounds> <rounds>}.
 */
public final class JavaReadFloor {

  private JavaReadFloor() {}

  public static void main(String[] args) throws Exception {
    boolean checked = switch (args[0]) {
      case "plain" -> false;
      case "checked" -> true;
      default -> throw new IllegalArgumentException("plain or checked, not " + args[0]);
    };
    FloorList list = FloorList.read(Path.of(args[1]));
    List<Path> files = list.files();
    List<Path> dirs = list.dirs();
    ByteBuffer buffer = ByteBuffer.allocate(1 << 16); // the C loop's one reused buffer
    long[] sink = new long[1];
    System.out.println(CpuTimedRuns.measure(Integer.parseInt(args[2]), Integer.parseInt(args[3]), () -> {
      for (Path d : dirs) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(d)) {
          for (Path e : entries) {
            sink[0] += e.getFileName().toString().length();
          }
        } catch (IOException e) {
          sink[0]++;
        }
      }
      for (Path f : files) {
        try {
          if (checked && !Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isRegularFile()) {
            continue;
          }
          try (SeekableByteChannel in = checked
              ? Files.newByteChannel(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)
              : Files.newByteChannel(f, StandardOpenOption.READ)) {
            buffer.clear();
            int n;
            while ((n = in.read(buffer)) > 0) {
              sink[0] += n;
              buffer.clear();
            }
          }
        } catch (IOException e) {
          sink[0]++; // the C loop's open fails on the same file
        }
      }
    }));
    if (sink[0] == 0) {
      System.err.println("nothing read");
    }
  }
}
