package io.nodeatlas.discovery.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyValueParserTest {

  @Test
  void procMeminfo() {
    String meminfo = """
        MemTotal:       527958016 kB
        HugePages_Total:    8192
        HugePages_Free:     8096
        HugePages_Rsvd:        0
        Hugepagesize:       2048 kB
        """;
    Map<String, String> kv = KeyValueParser.parse(meminfo);
    assertThat(kv).containsEntry("MemTotal", "527958016 kB").containsEntry("HugePages_Free", "8096")
        .containsEntry("Hugepagesize", "2048 kB");
  }

  @Test
  void nodeMeminfoPrefixIsDropped() {
    String text = "Node 1 MemTotal:       527958016 kB\nNode 1 MemFree:        1000 kB\nNode 1 HugePages_Total:  4096\n";
    assertThat(KeyValueParser.parse(text, "Node 1 "))
        .containsEntry("MemTotal", "527958016 kB")
        .containsEntry("MemFree", "1000 kB")
        .containsEntry("HugePages_Total", "4096");
  }

  @Test
  void linesWithoutColonAndDuplicatesAreHandled() {
    assertThat(KeyValueParser.parse("garbage\nA: 1\nA: 2\n:\n\0")).containsExactly(Map.entry("A", "1"));
  }

  @FuzzTest
  void neverThrows(@NotNull String text) {
    KeyValueParser.parse(text, "Node 0 ");
  }
}
