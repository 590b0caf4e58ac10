package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NamesTest {

  /** The API's own patterns (k8s.io/apimachinery validation: DNS1123Label, DNS1123Subdomain, CIdentifier). */
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern SUBDOMAIN = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern C_IDENTIFIER = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");

  @Test
  void theHandWrittenChecksAcceptWhatTheApiAccepts() {
    assertThat(Names.isDnsLabel("gpu-0")).isTrue();
    assertThat(Names.isDnsLabel("-gpu")).isFalse();
    assertThat(Names.isDnsLabel("gpu-")).isFalse();
    assertThat(Names.isDnsLabel("a".repeat(63))).isTrue();
    assertThat(Names.isDnsLabel("a".repeat(64))).isFalse();
    assertThat(Names.isDnsSubdomain("nodeatlas.io")).isTrue();
    assertThat(Names.isDnsSubdomain("nodeatlas..io")).isFalse();
    assertThat(Names.isDnsSubdomain("nodeatlas.io.")).isFalse();
    assertThat(Names.isDnsSubdomain("n".repeat(70) + ".io")).isTrue(); // as IsDNS1123Subdomain: labels unbounded
    assertThat(Names.isCIdentifier("pciDeviceID")).isTrue();
    assertThat(Names.isCIdentifier("9lives")).isFalse();
  }

  @FuzzTest(maxDuration = "10s")
  void handWrittenChecksAgreeWithTheApisPatterns(String s) {
    if (s == null) {
      return;
    }
    assertThat(Names.isDnsLabel(s)).isEqualTo(s.length() <= 63 && LABEL.matcher(s).matches());
    assertThat(Names.isDnsSubdomain(s)).isEqualTo(s.length() <= 253 && SUBDOMAIN.matcher(s).matches());
    assertThat(Names.isCIdentifier(s)).isEqualTo(C_IDENTIFIER.matcher(s).matches());
  }
}
