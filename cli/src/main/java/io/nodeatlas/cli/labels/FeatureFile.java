package io.nodeatlas.cli.labels;

import io.nodeatlas.discovery.files.AtomicFiles;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Our file in nfd-worker's {@code features.d} directory: {@code DIR/nodeatlas}, replaced atomically
 * through a temporary dot file (NFD's local source skips names that start with a dot), and left alone
 * when it already says the same. Shared by {@code nodeatlas labels --features-dir} and {@code run}, which
 * writes it after every discovery.
 */
public final class FeatureFile {

  /** The file name in the features.d directory. */
  public static final String NAME = "nodeatlas";

  private FeatureFile() {}

  /** What writing did and how many labels the file holds. */
  public record Written(Path file, boolean changed, int labels) {}

  /** Writes the labels of {@code devices} to {@code dir}/{@value #NAME}. */
  public static Written write(Path dir, List<Device> devices) throws IOException {
    NfdLabels.Result result = NfdLabels.of(devices);
    return write(dir, NfdLabels.featureFile(result.labels()), result.labels().size());
  }

  static Written write(Path dir, String text, int count) throws IOException {
    Path target = dir.resolve(NAME);
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == bytes.length
        && Arrays.equals(Files.readAllBytes(target), bytes)) {
      return new Written(target, false, count);
    }
    AtomicFiles.write(target, bytes, AtomicFiles.WORLD_READABLE);
    return new Written(target, true, count);
  }
}
