package io.nodeatlas.discovery.net.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.net.model.DevNumber;
import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.NumberedState;
import io.nodeatlas.discovery.net.model.Rate;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Every parser on arbitrary text: it returns a value that keeps the parser's invariants, or throws
 * {@link SysfsFormatException}; nothing else (no NumberFormatException, no index errors). Runs the
 * seeds under {@code ParsersFuzzTestInputs/} in regression mode; JAZZER_FUZZ=1 fuzzes.
 */
class ParsersFuzzTest {

  private static <T> T parseOrNull(String text, Function<String, T> parser) {
    try {
      return parser.apply(text);
    } catch (SysfsFormatException rejected) {
      return null;
    }
  }

  @FuzzTest
  void rate(FuzzedDataProvider data) {
    Rate r = parseOrNull(data.consumeRemainingAsString(), RateParser::parse);
    if (r != null) {
      assertThat(r.tenthsGbps()).isNotNegative();
      assertThat(r.width()).isNotNegative();
    }
  }

  @FuzzTest
  void numberedState(FuzzedDataProvider data) {
    NumberedState s = parseOrNull(data.consumeRemainingAsString(), t -> NumberedStateParser.parse("state", t));
    if (s != null) {
      assertThat(s.code()).isBetween(0, 255);
      // Published as a string attribute, so it must fit the API.
      AttributeValue.string(s.name());
    }
    parseOrNull(data.consumeRemainingAsString(), NodeTypeParser::parse);
  }

  @FuzzTest
  void identifiers(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    String guid = parseOrNull(text, t -> GuidParser.parse("node_guid", t));
    if (guid != null) {
      assertThat(guid).hasSize(19);
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
    String id = parseOrNull(text, t -> PciIdParser.parse("vendor", t, 4));
    if (id != null) {
      assertThat(id).hasSize(4);
    }
    parseOrNull(text, LinkLayerParser::parse);
    parseOrNull(text, NetnsModeParser::parse);
    parseOrNull(text, GidTableParser::parseType);
    parseOrNull(text, InterfaceNames::parse);
  }

  @FuzzTest
  void numbers(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    DevNumber dev = parseOrNull(text, DevNumberParser::parse);
    if (dev != null) {
      assertThat(dev.major()).isBetween(0L, 4095L);
      assertThat(DevNumberParser.parse(dev.toString())).isEqualTo(dev);
    }
    Long n = parseOrNull(text, t -> Numbers.parseDecimal("n", t, -1, 1 << 20));
    if (n != null) {
      assertThat(n).isBetween(-1L, (long) (1 << 20));
    }
    parseOrNull(text, t -> Numbers.parseHex("lid", t, 0xffff));
    parseOrNull(text, PcieLinkSpeedParser::parse);
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
    GidTable t = GidTableParser.parse(gids, types, ndevs, problem -> {});
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
    BusIds.nearestBdf(p).ifPresent(b -> assertThat(BusIds.isBdf(b)).isTrue());
    io.nodeatlas.discovery.pci.PcieRoots.ofSysfsPath(p).ifPresent(r -> assertThat(r).startsWith("pci"));
  }
}
