package io.nodeatlas.discovery.net.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.net.model.DevNumber;
import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.NumberedState;
import io.nodeatlas.discovery.net.model.Rate;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every parser on arbitrary text: it returns a value that keeps the parser's invariants, or throws
 * {@link IllegalArgumentException} with a printable message; nothing else (no NumberFormatException,
 * no index errors). The hand-written rate and GUID parsers must accept exactly what the kernel's
 * formats, written as regular expressions here, accept. Runs the seeds under
 * {@code ParsersFuzzTestInputs/} in regression mode; JAZZER_FUZZ=1 fuzzes.
 */
class ParsersFuzzTest {

  /** {@code rate_show}'s format, as the parser replaced used to match it. */
  private static final Pattern RATE =
      Pattern.compile("^(\\d{1,6})(\\.5)? Gb/sec \\((\\d{1,3})X ?([A-Z][A-Z0-9]{0,7})?\\)$");
  private static final Pattern GUID = Pattern.compile("^[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}$");

  private static <T> T parseOrNull(String text, Function<String, T> parser) {
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException rejected) {
      // The message reaches warnings and terminals: it quotes host text only through Excerpt.
      assertThat(Excerpt.isPrintable(rejected.getMessage())).as(rejected.getMessage()).isTrue();
      return null;
    }
  }

  @FuzzTest
  void rate(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    Rate r = parseOrNull(text, RateParser::parse);
    Matcher m = RATE.matcher(text);
    assertThat(r != null).as("accepts %s", text).isEqualTo(m.matches());
    if (r != null) {
      assertThat(r.tenthsGbps()).isEqualTo(Integer.parseInt(m.group(1)) * 10 + (m.group(2) == null ? 0 : 5));
      assertThat(r.width()).isEqualTo(Integer.parseInt(m.group(3)));
      assertThat(r.speed()).isEqualTo(Optional.ofNullable(m.group(4)));
    }
  }

  @FuzzTest
  void numberedState(FuzzedDataProvider data) {
    NumberedState s = parseOrNull(data.consumeRemainingAsString(), NumberedStateParser::parse);
    if (s != null) {
      assertThat(s.code()).isBetween(0, 255);
      // Published as a string attribute, so it must fit the API.
      AttributeValue.string(s.label());
    }
    parseOrNull(data.consumeRemainingAsString(), NodeTypeParser::parse);
  }

  @FuzzTest
  void identifiers(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    String guid = parseOrNull(text, GuidParser::parse);
    assertThat(guid != null).as("accepts %s", text).isEqualTo(GUID.matcher(text).matches());
    if (guid != null) {
      assertThat(guid).hasSize(19).isEqualTo(text.toLowerCase(java.util.Locale.ROOT));
    }
    String gid = parseOrNull(text, GidParser::parse);
    if (gid != null) {
      assertThat(GidParser.interfaceId(gid)).hasSize(16);
    }
    String mac = parseOrNull(text, MacAddressParser::parse);
    if (mac != null) {
      AttributeValue.string(mac);
      MacAddressParser.lastEightBytes(mac);
    }
    parseOrNull(text, LinkLayerParser::parse);
    parseOrNull(text, NetnsModeParser::parse);
    parseOrNull(text, GidTableParser::parseType);
    parseOrNull(text, InterfaceNames::parse);
  }

  @FuzzTest
  void textValues(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    String free = parseOrNull(text, TextValues::freeText);
    if (free != null) {
      assertThat(free.chars()).noneMatch(c -> c < 0x20 || c == 0x7f);
    }
    String token = parseOrNull(text, TextValues::token);
    if (token != null) {
      assertThat(token).hasSizeLessThanOrEqualTo(64);
      AttributeValue.string(token);
    }
    String state = parseOrNull(text, TextValues::operState);
    if (state != null) {
      assertThat(state).isLowerCase();
    }
  }

  @FuzzTest
  void numbers(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    DevNumber dev = parseOrNull(text, DevNumberParser::parse);
    if (dev != null) {
      assertThat(dev.major()).isBetween(0L, 4095L);
      assertThat(DevNumberParser.parse(dev.toString())).isEqualTo(dev);
    }
    Long n = parseOrNull(text, t -> Numbers.parseDecimal(t, -1, 1 << 20));
    if (n != null) {
      assertThat(n).isBetween(-1L, (long) (1 << 20));
      assertThat(Numbers.parseDecimal(Long.toString(n), -1, 1 << 20)).isEqualTo(n);
    }
    Long lid = parseOrNull(text, t -> Numbers.parseHex(t, 0xffff));
    if (lid != null) {
      assertThat(lid).isBetween(0L, 0xffffL);
    }
  }

  @FuzzTest
  void gidTable(FuzzedDataProvider data) {
    TreeMap<Integer, String> gids = new TreeMap<>();
    Map<Integer, String> types = new HashMap<>();
    Map<Integer, String> ndevs = new HashMap<>();
    int n = data.consumeInt(0, 8);
    for (int i = 0; i < n; i++) {
      gids.put(i, data.consumeString(48));
      types.put(i, data.consumeString(16));
      ndevs.put(i, data.consumeString(20));
    }
    GidTable t = GidTableParser.parse(gids, types, ndevs,
        (file, problem) -> assertThat(Excerpt.isPrintable(problem)).as(problem).isTrue());
    assertThat(t.size()).isEqualTo(n);
    assertThat(t.populated()).allSatisfy(e -> assertThat(GidParser.isZero(e.gid())).isFalse());
    t.ndevs().forEach(InterfaceNames::parse);
  }

  @FuzzTest
  void busIds(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    Path p;
    try {
      p = Path.of(text);
    } catch (InvalidPathException notAPath) {
      return;
    }
    // The function a device link leads to: always a whole sysfs function name of the path.
    PciAddress.nearest(p).ifPresent(a -> {
      assertThat(PciAddress.isSysfsName(a.toString())).isTrue();
      assertThat(p.toString()).contains(a.toString());
    });
    io.nodeatlas.discovery.pci.PcieRoots.ofSysfsPath(p).ifPresent(r -> assertThat(r).startsWith("pci"));
  }
}
