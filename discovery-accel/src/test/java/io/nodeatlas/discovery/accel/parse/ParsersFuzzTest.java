package io.nodeatlas.discovery.accel.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.accel.parse.PciIdsDatabase.DeviceKey;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.AttributeValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Every parser on arbitrary text: a value that keeps the parser's invariants, or
 * {@link IllegalArgumentException}; nothing else. Runs the seeds under {@code ParsersFuzzTestInputs/}
 * in regression mode; JAZZER_FUZZ=1 fuzzes.
 */
class ParsersFuzzTest {

  private static <T> T parseOrNull(String text, Function<String, T> parser) {
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException rejected) {
      return null;
    }
  }

  @FuzzTest
  void devNumber(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    DevNumber d = parseOrNull(text, DevNumber::parse);
    if (d != null) {
      assertThat(d.major()).isBetween(0L, DevNumber.MAX_MAJOR);
      assertThat(d.minor()).isBetween(0L, DevNumber.MAX_MINOR);
      assertThat(DevNumber.parse(d.toString())).isEqualTo(d);
    }
  }

  @FuzzTest
  void memorySizes(FuzzedDataProvider data) {
    List<Long> tiles = new ArrayList<>();
    int n = data.consumeInt(0, 4);
    for (int i = 0; i < n; i++) {
      Long v = parseOrNull(data.consumeString(24), MemorySizes::bytes);
      if (v != null) {
        assertThat(v).isPositive();
        tiles.add(v);
      }
    }
    Long sum = parseOrNull("", t -> MemorySizes.sum(tiles));
    if (sum != null) {
      assertThat(sum).isGreaterThanOrEqualTo(tiles.stream().mapToLong(Long::longValue).max().orElse(0));
    }
  }

  @FuzzTest
  void hostText(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    String t = parseOrNull(text, HostText::printable);
    if (t != null) {
      assertThat(t).isNotBlank();
      assertThat(Excerpt.isPrintable(t)).isTrue();
    }
    String id = parseOrNull(text, HostText::uniqueId);
    if (id != null) {
      assertThat(id).matches("[0-9a-f]{16}");
      AttributeValue.string(id);
    }
  }

  @FuzzTest
  void drmNodeName(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    DrmNodeName.of(text).ifPresent(n -> {
      assertThat(n.name()).isEqualTo(text);
      assertThat(n.devPath()).startsWith("/dev/dri/").doesNotContain("..");
    });
  }

  @FuzzTest
  void pciIds(FuzzedDataProvider data) {
    String vendor = String.format("%04x", data.consumeInt(0, 0xffff));
    String device = String.format("%04x", data.consumeInt(0, 0xffff));
    Set<DeviceKey> wanted = Set.of(new DeviceKey(vendor, device), new DeviceKey("1002", "740f"));
    String text = data.consumeRemainingAsString();
    PciIdsDatabase.Names names = parseOrNull(text, t -> PciIdsDatabase.lookup(t, wanted));
    if (names != null) {
      assertThat(wanted).containsAll(names.deviceNames().keySet());
      assertThat(names.malformedLines()).isNotNegative();
      assertThat(names.firstMalformedLine() == 0).isEqualTo(names.malformedLines() == 0);
      names.deviceNames().values().forEach(name -> {
        assertThat(name).isNotBlank().hasSizeLessThanOrEqualTo(PciIdsDatabase.MAX_LINE_CHARS);
        assertThat(Excerpt.isPrintable(name)).isTrue();
      });
    }
  }
}
